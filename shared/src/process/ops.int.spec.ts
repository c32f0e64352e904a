/**
 * A server's graceful close (`listen`), over real loopback connections: it ends the open streams at
 * once, lets a request in flight be answered and then closes its connection, kept alive or not. Before,
 * a stream held the close for as long as its client stayed, and a kept-alive connection answered
 * during the close held it for the keep-alive timeout (65 s).
 */
import { createServer, request, Agent, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { settlesWithin } from '@tokenops/testing/time';
import { listen, OpenStreams } from './ops';

/** A stream as the API's are: a line every 50 ms until its signal says stop, then its end. */
async function stream(streams: OpenStreams, res: ServerResponse): Promise<void> {
  const done = streams.follow(res);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  while (!done.aborted) {
    res.write('data: tick\n\n');
    await sleep(50, undefined, { signal: done }).catch(() => undefined);
  }
  res.end();
}

async function serve(handler: (res: ServerResponse, streams: OpenStreams) => void | Promise<void>) {
  const streams = new OpenStreams();
  const server = createServer((_req, res) => void handler(res, streams));
  const http = await listen(server, 0, '127.0.0.1', { streams });
  return { http, streams };
}

describe('listen: a graceful close', () => {
  it('ends an open stream at once (its client sees its end) and resolves', async () => {
    const { http } = await serve((res, streams) => stream(streams, res));
    const res = await fetch(http.url);
    const reader = res.body!.getReader();
    await reader.read(); // the first line
    const ended = (async () => {
      while (!(await reader.read()).done);
      return 'ended';
    })();
    expect(await settlesWithin(http.close(), 2_000)).toBe(true);
    await expect(ended).resolves.toBe('ended');
  });

  it('answers a request in flight on a kept-alive connection, then closes the connection: the close does not wait for the keep-alive timeout', async () => {
    const { http } = await serve(async (res) => {
      await sleep(300);
      res.end('answered');
    });
    const agent = new Agent({ keepAlive: true });
    const answered = new Promise<string>((resolve, reject) => {
      const req = request(http.url, { agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
    await sleep(100); // in flight
    const closed = http.close();
    expect(await answered).toBe('answered');
    expect(await settlesWithin(closed, 2_000)).toBe(true);
    agent.destroy();
  });

  it('ends at once a stream begun while it closes', async () => {
    const { http } = await serve(async (res, streams) => {
      await sleep(200); // the close comes meanwhile
      await stream(streams, res);
    });
    const res = fetch(http.url);
    await sleep(50);
    const closed = http.close();
    let body: string | undefined;
    expect(
      await settlesWithin(
        res.then(async (r) => (body = await r.text())),
        2_000,
      ),
    ).toBe(true);
    expect(body).toBe(''); // not one line: it ended before it began
    expect(await settlesWithin(closed, 2_000)).toBe(true);
  });
});
