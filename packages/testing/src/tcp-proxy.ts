/**
 * A TCP proxy a test puts between a process and one of its dependencies (Redis, PostgreSQL, the chain
 * node), to take the dependency away and give it back without touching the real server other suites
 * share: `cut()` closes every connection and refuses new ones, `restore()` listens again on the same
 * port. `withholdAnswersAfter(marker)` lets requests through but, on a connection that has sent
 * `marker` (e.g. `"sendTransaction"`), drops the answers: the request took effect, its sender never
 * hears of it (the process then hangs in that call, as one that dies just after sending would).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { freePort } from './ports';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private marker: string | undefined;
  /** Connections whose answers are dropped (they sent the marker). */
  withheld = 0;

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  /** A proxy on a free port of 127.0.0.1 to `target` (a URL, e.g. redis://127.0.0.1:6379). */
  static async open(target: string): Promise<TcpProxy> {
    const u = new URL(target);
    const port = Number(u.port || (u.protocol === 'redis:' ? 6379 : u.protocol === 'postgres:' ? 5432 : 80));
    const proxy = new TcpProxy(await freePort(), { host: u.hostname, port });
    await proxy.restore();
    return proxy;
  }

  /** `target` with its host and port replaced by the proxy's. */
  url(target: string): string {
    const u = new URL(target);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString().replace(/\/$/, '');
  }

  /** Drops the answers on every connection from the moment it sends `marker`. */
  withholdAnswersAfter(marker: string): void {
    this.marker = marker;
  }

  /** The dependency goes away: every connection is closed and new ones are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise((r) => server.close(r));
  }

  /** The dependency is back: the proxy listens again on its port. */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.relay(client));
    await new Promise<void>((resolve, fail) => {
      server.once('error', fail);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    let mute = false;
    this.sockets.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      if (!mute && this.marker && chunk.includes(this.marker)) {
        mute = true;
        this.withheld += 1;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!mute) client.write(chunk);
    });
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }
}
