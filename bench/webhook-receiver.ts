/**
 * The HTTPS receiver of the webhook benchmark, in a process of its own so it does not share the
 * client's event loop: forked by webhooks.bench.ts, it gets its certificate and key over IPC, listens
 * on loopback, answers every request 200 once its body is read, and counts them.
 * Messages in: `{ cert, key }` (start), `'count'`, `'stop'`. Out: `{ port }`, `{ count }`.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const send = (message: object) => process.send?.(message);

process.once('message', (tls: { cert: string; key: string }) => {
  let count = 0;
  const server = createServer({ cert: tls.cert, key: tls.key, keepAliveTimeout: 10_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.listen(0, '127.0.0.1', () => send({ port: (server.address() as AddressInfo).port }));
  process.on('message', (message) => {
    if (message === 'count') send({ count });
    if (message === 'stop') {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
});
// The bench process gone (finished or killed), this one goes too.
process.on('disconnect', () => process.exit(0));
