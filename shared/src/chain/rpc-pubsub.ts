/**
 * The chain node's WebSocket (Solana's RPC PubSub): `signatureSubscribe` / `signatureUnsubscribe` and
 * `logsSubscribe` / `logsUnsubscribe`, in the shapes a Solana node answers them, so a client (web3.js
 * `Connection.onSignature`, `onLogs`) learns that its transaction landed, or that a transaction
 * touched an account it watches, the moment it happens, instead of polling.
 *
 * `signatureSubscribe` [signature, {commitment}] answers a subscription id; once the signature is
 * processed, one `signatureNotification` `{context: {slot}, value: {err}}` follows and the
 * subscription ends (as on a Solana node, nothing to unsubscribe). A signature already processed when
 * the subscription arrives is notified at once. Every commitment is notified at processing: this
 * chain finalizes what it processes. `enableReceivedNotification` is not served (no "received"
 * notification); other methods answer "Method not found"; notifications from the client (web3.js's
 * `ping`) are ignored.
 *
 * `logsSubscribe` [{mentions: [address]}, {commitment}] (one address, as on Solana; `all` is not
 * served) answers a subscription id; each processed transaction whose account keys include the address
 * is then notified, `logsNotification` `{context: {slot}, value: {signature, err, logs}}`, until
 * `logsUnsubscribe`. The node keeps no program logs, so `logs` is empty.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SignatureStatus } from './port';
import { isAddress } from '../domain/tokens';

interface Subscription {
  id: number;
  socket: WebSocket;
  /** A signature's (signatureSubscribe), or an account's (logsSubscribe with `mentions`). */
  signature?: string;
  mentions?: string;
  /** The socket's subscriptions, which end with it. */
  owned: Set<Subscription>;
}

export interface SignaturePubsub {
  /** Hands an HTTP upgrade request to the WebSocket server. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Whether anyone watches accounts (then `processed` wants the transaction's account keys). */
  readonly watchingAccounts: boolean;
  /**
   * Tells the subscribers of `signature` it was processed (when it was: its status says), and those
   * of the accounts among `accounts` (its account keys) that a transaction touched them.
   */
  processed(signature: string, accounts?: readonly string[]): Promise<void>;
  close(): void;
}

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

export function signaturePubsub(chain: {
  slot(): bigint;
  status(signature: string): Promise<SignatureStatus>;
}): SignaturePubsub {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const bySignature = new Map<string, Set<Subscription>>();
  const byAccount = new Map<string, Set<Subscription>>();
  const byId = new Map<number, Subscription>();
  let nextId = 0;

  const send = (socket: WebSocket, body: unknown) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(body));
  };
  const index = (sub: Subscription) =>
    sub.signature !== undefined
      ? ([bySignature, sub.signature] as const)
      : ([byAccount, sub.mentions!] as const);
  const drop = (sub: Subscription) => {
    byId.delete(sub.id);
    sub.owned.delete(sub);
    const [map, key] = index(sub);
    const subs = map.get(key);
    subs?.delete(sub);
    if (subs?.size === 0) map.delete(key);
  };
  const add = (sub: Subscription) => {
    byId.set(sub.id, sub);
    sub.owned.add(sub);
    const [map, key] = index(sub);
    map.set(key, (map.get(key) ?? new Set()).add(sub));
  };
  const notify = async (signature: string, accounts: readonly string[] = []) => {
    const watched = accounts.filter((a) => byAccount.has(a));
    if (!bySignature.has(signature) && watched.length === 0) return;
    const status = await chain.status(signature);
    if (status === 'unknown') return;
    const err = status === 'failed' ? { InstructionError: [0, 'Failed'] } : null;
    const slot = Number(chain.slot());
    for (const account of new Set(watched))
      for (const sub of byAccount.get(account) ?? [])
        send(sub.socket, {
          jsonrpc: '2.0',
          method: 'logsNotification',
          params: {
            result: { context: { slot }, value: { signature, err, logs: [] } },
            subscription: sub.id,
          },
        });
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
      add(sub);
      send(socket, { jsonrpc: '2.0', id, result: sub.id });
      // It may have landed before the subscription arrived: then it is notified now.
      await notify(signature);
      return;
    }
    if (request.method === 'logsSubscribe') {
      const mentions = (params[0] as { mentions?: unknown } | null | undefined)?.mentions;
      if (
        !Array.isArray(mentions) ||
        mentions.length !== 1 ||
        typeof mentions[0] !== 'string' ||
        !isAddress(mentions[0])
      )
        return fail(-32602, 'Invalid params: this node watches one address: {"mentions": [<address>]}');
      const sub: Subscription = { id: nextId++, socket, mentions: mentions[0], owned };
      add(sub);
      return send(socket, { jsonrpc: '2.0', id, result: sub.id });
    }
    if (request.method === 'signatureUnsubscribe' || request.method === 'logsUnsubscribe') {
      const sub = byId.get(params[0] as number);
      const kind = request.method === 'logsUnsubscribe' ? 'mentions' : 'signature';
      if (!sub || sub.socket !== socket || sub[kind] === undefined)
        return fail(-32602, 'Invalid subscription id.');
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
    get watchingAccounts() {
      return byAccount.size > 0;
    },
    processed: (signature, accounts) => notify(signature, accounts),
    close: () => {
      // A normal closure: a client with nothing subscribed stays away; one waiting reconnects.
      for (const client of wss.clients) client.close(1000, 'the chain node is stopping');
      wss.close();
    },
  };
}
