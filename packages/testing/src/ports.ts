/**
 * A free TCP port on loopback, for a server a test starts. On its own so that what needs only a port
 * (the private servers, the TCP proxy) does not load all that the topology imports (the service's
 * adapters, the chain's native LiteSVM among them).
 */
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
