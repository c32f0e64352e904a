/**
 * The operations endpoints every process serves: `/healthz` (the process is alive), `/readyz` (every
 * dependency it needs answers: 503 naming those that do not, readiness.ts) and `/metrics`
 * (Prometheus text). The API mounts them on its own port; workers serve them alone on theirs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { assessDependencies, readinessAnswer, type Dependencies } from './readiness';

export interface OpsOptions {
  registry: Registry;
  /** What the process needs to do its work, by the name `/readyz` reports when it fails. */
  dependencies: Dependencies;
}

/** Answers an ops path, or returns false for any other path. */
export async function answerOps(
  req: IncomingMessage,
  res: ServerResponse,
  ops: OpsOptions,
): Promise<boolean> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET') return false;
  if (path === '/healthz') {
    send(res, 200, 'application/json', JSON.stringify({ status: 'ok' }));
    return true;
  }
  if (path === '/readyz') {
    const answer = readinessAnswer(await assessDependencies(ops.dependencies));
    send(res, answer.status, 'application/json', JSON.stringify(answer.body));
    return true;
  }
  if (path === '/metrics') {
    send(res, 200, ops.registry.contentType, await ops.registry.metrics());
    return true;
  }
  return false;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

export interface Listening {
  url: string;
  /**
   * Stops taking connections, ends the open streams (`streams`) and resolves once the requests in
   * flight have been answered and every connection has closed.
   */
  close(): Promise<void>;
}

/**
 * The responses of a server that last as long as their client wants them to (the console's
 * server-sent events, NDJSON audit streams). `http.Server.close()` waits for every response in
 * flight, so a graceful stop with one of them open would wait on its client (the console's event
 * stream: until the operator's token expired, an hour). A stream follows its response's signal, and
 * a stop aborts every signal at once: each stream ends what it was writing and returns.
 */
export class OpenStreams {
  private readonly open = new Set<AbortController>();
  private stopped = false;

  /**
   * A signal for one streamed response, aborted when its client goes or the server stops (at once, for
   * a stream begun while it stops). The response closes its connection when it ends (nothing idle is
   * left for a stopping server to wait on).
   */
  follow(res: ServerResponse): AbortSignal {
    const done = new AbortController();
    if (!res.headersSent) res.setHeader('connection', 'close');
    if (this.stopped) {
      done.abort();
      return done.signal;
    }
    this.open.add(done);
    res.once('close', () => {
      this.open.delete(done);
      done.abort();
    });
    return done.signal;
  }

  /** Ends every open stream, and any begun from now on. */
  stop(): void {
    this.stopped = true;
    for (const done of this.open) done.abort();
    this.open.clear();
  }
}

export interface ListenOptions {
  /** The long-lived responses of the server's handlers, ended when it closes. */
  streams?: OpenStreams;
}

/** Listens on `port` (0: any free one) and `host`; closes gracefully. Every HTTP server here starts so. */
export async function listen(
  server: Server,
  port: number,
  host: string,
  options: ListenOptions = {},
): Promise<Listening> {
  server.keepAliveTimeout = 65_000; // longer than the usual load balancer's idle timeout
  // Once closing, a connection whose response was just sent is closed as soon as it is idle: kept
  // alive, it would hold the stop until keepAliveTimeout (server.close() closes only the connections
  // idle when it is called).
  let closing = false;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    res.once('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  // A request Node refuses before any handler sees it (headers over 16 KiB, a malformed request line)
  // still gets the error envelope (400 validation_error), not a bare 431 or 400.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: 'validation_error',
      message: tooLarge ? 'The request headers are over 16 KiB.' : 'The request is not valid HTTP.',
      details: [{ path: '', issue: tooLarge ? 'headers too large' : 'malformed request' }],
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        options.streams?.stop();
        server.closeIdleConnections();
      }),
  };
}

/** A server of the ops endpoints alone (projector, executor). */
export function serveOps(port: number, host: string, ops: OpsOptions): Promise<Listening> {
  const server = createServer((req, res) => {
    answerOps(req, res, ops)
      .then((answered) => {
        if (!answered) send(res, 404, 'application/json', JSON.stringify({ error: 'not_found' }));
      })
      .catch(() => send(res, 500, 'application/json', JSON.stringify({ error: 'internal_error' })));
  });
  return listen(server, port, host);
}
