/**
 * A tiny HTTP proxy in front of the service, for the client's end-to-end tests: it records every
 * request and forwards it, except where a test asked for a fault on a path: an answer of its own
 * (a 503, a 429 with Retry-After) instead of the service's, or the connection cut once the service
 * has answered (the answer is lost, the operation done).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  'cut-after-forward' | { status: number; headers?: Record<string, string>; body?: unknown };

export interface Seen {
  method: string;
  path: string;
  body: string;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const forwardable = (headers: IncomingHttpHeaders | Headers): Record<string, string> =>
  Object.fromEntries(
    [...(headers instanceof Headers ? headers.entries() : Object.entries(headers))]
      .filter(([k, v]) => typeof v === 'string' && !HOP_BY_HOP.has(k) && k !== 'content-encoding')
      .map(([k, v]) => [k, v as string]),
  );

export async function faultProxy(target: string) {
  const seen: Seen[] = [];
  const faults: { path: string; fault: Fault }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';
    seen.push({ method, path, body });
    const at = faults.findIndex((f) => f.path === path.split('?')[0]);
    const fault = at >= 0 ? faults.splice(at, 1)[0]!.fault : undefined;
    if (fault !== undefined && fault !== 'cut-after-forward') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      return void res.end(JSON.stringify(fault.body ?? {}));
    }
    const answer = await fetch(`${target}${path}`, {
      method,
      headers: forwardable(req.headers),
      ...(method !== 'GET' && method !== 'HEAD' && { body }),
    });
    const text = await answer.text();
    if (fault === 'cut-after-forward') return void req.socket.destroy();
    res.writeHead(answer.status, forwardable(answer.headers));
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    /** The requests made to `path` (under /api/v1), in order. */
    to: (path: string) => seen.filter((s) => s.path.split('?')[0] === `/api/v1${path}`),
    /** The next requests to `path` (under /api/v1) meet these faults, one each, in order. */
    fail(path: string, ...next: Fault[]) {
      for (const fault of next) faults.push({ path: `/api/v1${path}`, fault });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
