/**
 * The node's WebSocket as a Solana client speaks to it (RPC PubSub): `signatureSubscribe` and
 * `logsSubscribe` with their notifications and unsubscribes, on one socket opened when the first
 * subscription comes. When the socket closes (the node restarted, the network) it is opened again,
 * backing off from `reconnectMs` to 5 s, and every subscription still wanted is sent again: a
 * notification sent while it was closed is lost, which those who subscribe cover (confirmations.ts
 * sweeps what is still in flight; the payment watcher looks at the node's history). A ping goes out
 * every 5 s (as web3.js's client sent one every 5 s: providers close a socket idle for a
 * minute); a socket that has not answered the last one by the next is taken for dead and closed.
 *
 * What it replaced: `@solana/web3.js`'s Connection, whose subscription bookkeeping walks every
 * subscription at each change and validates each notification against a schema (about a tenth of
 * the executors' CPU under load, profiled in the server bench: docs/performance.md), and which printed
 * socket errors with console.error and retried a failed unsubscribe in a loop of promises.
 * A notification here is one JSON.parse and a map lookup; nothing is printed.
 */
import { WebSocket } from 'ws';

type Kind = 'signature' | 'logs';

interface Wanted {
  kind: Kind;
  params: unknown[];
  onResult(result: unknown): void;
  /** The node's id for it on the open socket, once it answered. */
  id?: number;
  /** The node ends it after its one notification (signatures). */
  once: boolean;
  ended: boolean;
}

const MAX_RECONNECT_MS = 5_000;
const HEARTBEAT_MS = 5_000;

/** A cluster's WebSocket by Solana's convention: the RPC URL with ws(s)://, its port (if any) + 1. */
export function pubsubUrlFor(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (url.port) url.port = String(Number(url.port) + 1);
  return url.toString();
}

export class PubsubClient {
  private socket: WebSocket | undefined;
  private closed = false;
  private nextRequest = 0;
  private backoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly wanted = new Set<Wanted>();
  private readonly byId = new Map<number, Wanted>();
  private readonly byRequest = new Map<number, Wanted>();

  private readonly reconnectMs: number;
  private readonly heartbeatMs: number;

  constructor(
    private readonly url: string,
    options: { reconnectMs?: number; heartbeatMs?: number } = {},
  ) {
    this.reconnectMs = options.reconnectMs ?? 250;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.backoffMs = this.reconnectMs;
  }

  /** `signatureSubscribe`: `settled` once, with whether it failed; returns a way to stop waiting. */
  signature(signature: string, settled: (failed: boolean) => void): () => void {
    return this.subscribe('signature', [signature, { commitment: 'confirmed' }], true, (result) =>
      settled(((result as { value?: { err?: unknown } }).value?.err ?? null) !== null),
    );
  }

  /** `logsSubscribe` mentioning `address`: the signature of each transaction that touches it. */
  logs(address: string, touched: (signature: string) => void): () => void {
    return this.subscribe('logs', [{ mentions: [address] }, { commitment: 'confirmed' }], false, (result) => {
      const signature = (result as { value?: { signature?: unknown } }).value?.signature;
      if (typeof signature === 'string') touched(signature);
    });
  }

  /** Closes the socket for good; subscriptions end without a word. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.wanted.clear();
    this.socket?.close();
  }

  private subscribe(kind: Kind, params: unknown[], once: boolean, onResult: (r: unknown) => void) {
    if (this.closed) return () => undefined;
    const w: Wanted = { kind, params, onResult, once, ended: false };
    this.wanted.add(w);
    if (this.socket?.readyState === WebSocket.OPEN) this.ask(w);
    else this.connect();
    return () => this.end(w, true);
  }

  private end(w: Wanted, unsubscribe: boolean): void {
    if (w.ended) return;
    w.ended = true;
    this.wanted.delete(w);
    if (w.id === undefined) return; // unasked, or its answer still coming: handled when it comes
    this.byId.delete(w.id);
    if (unsubscribe) this.send(`${w.kind}Unsubscribe`, [w.id]);
  }

  private connect(): void {
    if (this.socket || this.closed || this.timer) return;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    let heartbeat: NodeJS.Timeout | undefined;
    let answered = true;
    socket.on('pong', () => (answered = true));
    socket.on('open', () => {
      heartbeat = setInterval(() => {
        if (!answered) return socket.terminate(); // 'close' follows
        answered = false;
        socket.ping();
      }, this.heartbeatMs);
      heartbeat.unref();
      this.backoffMs = this.reconnectMs;
      for (const w of this.wanted) this.ask(w);
    });
    socket.on('message', (data) => this.receive(String(data)));
    socket.on('error', () => undefined); // 'close' follows
    socket.on('close', () => {
      clearInterval(heartbeat);
      this.socket = undefined;
      this.byId.clear();
      this.byRequest.clear();
      for (const w of this.wanted) w.id = undefined;
      if (this.closed || this.wanted.size === 0) return;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.connect();
      }, this.backoffMs);
      this.timer.unref();
      this.backoffMs = Math.min(MAX_RECONNECT_MS, this.backoffMs * 2);
    });
  }

  private ask(w: Wanted): void {
    this.byRequest.set(this.send(`${w.kind}Subscribe`, w.params), w);
  }

  private send(method: string, params: unknown[]): number {
    const id = ++this.nextRequest;
    if (this.socket?.readyState === WebSocket.OPEN)
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return id;
  }

  private receive(text: string): void {
    let message: { id?: unknown; result?: unknown; params?: { subscription?: unknown; result?: unknown } };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (typeof message.id === 'number') {
      const w = this.byRequest.get(message.id);
      if (!w) return; // an unsubscribe's answer
      this.byRequest.delete(message.id);
      // Refused (an error): nothing will come; those who wait cover it (the sweep, the history).
      if (typeof message.result !== 'number') return void this.end(w, false);
      w.id = message.result;
      if (w.ended) return void this.send(`${w.kind}Unsubscribe`, [w.id]);
      this.byId.set(w.id, w);
      return;
    }
    const id = message.params?.subscription;
    const w = typeof id === 'number' ? this.byId.get(id) : undefined;
    if (!w) return;
    if (w.once) this.end(w, false);
    w.onResult(message.params!.result);
  }
}
