/**
 * The chain node's WebSocket (Solana's RPC PubSub): `signatureSubscribe` and `signatureUnsubscribe`,
 * in the shapes a Solana node answers them, so a client (web3.js `Connection.onSignature`) learns
 * that its transaction landed the moment it does, instead of polling its status.
 *
 * `signatureSubscribe` [signature, {commitment}] answers a subscription id; once the signature is
 * processed, one `signatureNotification` `{context: {slot}, value: {err}}` follows and the
 * subscription ends (as on a Solana node, nothing to unsubscribe). A signature already processed when
 * the subscription arrives is notified at once. Every commitment is notified at processing: this
 * chain finalizes what it processes. `enableReceivedNotification` is not served (no "received"
 * notification); other methods answer "Method not found"; notifications from the client (web3.js's
 * `ping`) are ignored.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SignatureStatus } from './port';

interface Subscription {
  id: number;
  socket: WebSocket;
  signature: string;
  /** The socket's subscriptions, which end with it. */
  owned: Set<Subscription>;
}

export interface SignaturePubsub {
  /** Hands an HTTP upgrade request to the WebSocket server. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Tells the subscribers of `signature` it was processed (when it was: its status says). */
  processed(signature: string): Promise<void>;
  close(): void;
}

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

export function signaturePubsub(chain: {
  slot(): bigint;
  status(signature: string): Promise<SignatureStatus>;
}): SignaturePubsub {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const bySignature = new Map<string, Set<Subscription>>();
  const byId = new Map<number, Subscription>();
  let nextId = 0;

  const send = (socket: WebSocket, body: unknown) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(body));
  };
  const drop = (sub: Subscription) => {
    byId.delete(sub.id);
    sub.owned.delete(sub);
    const subs = bySignature.get(sub.signature);
    subs?.delete(sub);
    if (subs?.size === 0) bySignature.delete(sub.signature);
  };
  const notify = async (signature: string) => {
    if (!bySignature.has(signature)) return;
    const status = await chain.status(signature);
    if (status === 'unknown') return;
    const err = status === 'failed' ? { InstructionError: [0, 'Failed'] } : null;
    const slot = Number(chain.slot());
    for (const sub of [...(bySignature.get(signature) ?? [])]) {
      drop(sub);
      send(sub.socket, {
        jsonrpc: '2.0',
        method: 'signatureNotification',
        params: { result: { context: { slot }, value: { err } }, subscription: sub.id },
      });
    }
  };

  const answer = async (socket: WebSocket, owned: Set<Subscription>, text: string) => {
    let request: { id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(text) as typeof request;
    } catch {
      send(socket, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (request === null || typeof request !== 'object' || request.id === undefined) return; // a notification
    const id = request.id;
    const params = Array.isArray(request.params) ? (request.params as unknown[]) : [];
    const fail = (code: number, message: string) =>
      send(socket, { jsonrpc: '2.0', id, error: { code, message } });
    if (request.method === 'signatureSubscribe') {
      const signature = params[0];
      if (typeof signature !== 'string' || !SIGNATURE.test(signature))
        return fail(-32602, 'Invalid params: signature is not a base58 signature');
      const sub: Subscription = { id: nextId++, socket, signature, owned };
      byId.set(sub.id, sub);
      owned.add(sub);
      bySignature.set(signature, (bySignature.get(signature) ?? new Set()).add(sub));
      send(socket, { jsonrpc: '2.0', id, result: sub.id });
      // It may have landed before the subscription arrived: then it is notified now.
      await notify(signature);
      return;
    }
    if (request.method === 'signatureUnsubscribe') {
      const sub = byId.get(params[0] as number);
      if (!sub || sub.socket !== socket) return fail(-32602, 'Invalid subscription id.');
      drop(sub);
      return send(socket, { jsonrpc: '2.0', id, result: true });
    }
    fail(-32601, `Method not found: ${String(request.method)}`);
  };

  wss.on('connection', (socket) => {
    const owned = new Set<Subscription>();
    socket.on('message', (data) => {
      void answer(socket, owned, String(data)).catch(() =>
        send(socket, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }),
      );
    });
    socket.on('close', () => [...owned].forEach(drop));
    socket.on('error', () => socket.terminate());
  });

  return {
    upgrade: (req, socket, head) =>
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)),
    processed: (signature) => notify(signature),
    close: () => {
      // A normal closure: a client with nothing subscribed stays away; one waiting reconnects.
      for (const client of wss.clients) client.close(1000, 'the chain node is stopping');
      wss.close();
    },
  };
}
