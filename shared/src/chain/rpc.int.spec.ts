import { chainContract } from './contract';
import { LiteSvmChain } from './litesvm';
import { RpcChain } from './rpc';
import { WebSocket } from 'ws';
import { serveChainRpc, type ChainNode } from './rpc-node';
import { generateSigner } from './keys';
import { localFixtures } from './local-fixtures';
import { ata, mintToInstructions } from './transactions';
import { waitFor } from '../event-store/contract';
import { JsonRpcClient } from './json-rpc';

// The RPC adapter against the local chain node: LiteSVM served over Solana JSON-RPC on loopback.
chainContract('Solana JSON-RPC (local chain node)', async () => {
  const backend = await LiteSvmChain.open({ seed: 'rpc-test' });
  const node = await serveChainRpc(backend.node(), { port: 0 });
  const client = RpcChain.local(node.url, 'rpc-test');
  const close = client.close.bind(client);
  client.close = async () => {
    await close();
    await node.close();
    await backend.close();
  };
  return client;
});

// An executor checks the funds of each job it starts: those asked in one turn are one call to the node.
describe('token accounts asked at once', () => {
  it('travel in one getMultipleAccounts, each answered as it is when asked alone', async () => {
    const seed = 'rpc-accounts';
    const backend = await LiteSvmChain.open({ seed });
    const node = await serveChainRpc(backend.node(), { port: 0 });
    const client = RpcChain.local(node.url, seed);
    try {
      const f = localFixtures(seed);
      const usdc = f.mints[0]!;
      const holder = generateSigner().address;
      const stranger = generateSigner().address;
      await client.submit(
        await client.prepare(
          await mintToInstructions(f.payer, f.authority, holder, usdc.mint, usdc.decimals, 1_500_000n, 'a'),
          [f.authority],
        ),
      );
      const alone = [
        await client.tokenAccount(holder, usdc.mint),
        await client.tokenAccount(stranger, usdc.mint),
      ];
      expect(alone.map((a) => [a.exists, a.amount])).toEqual([
        [true, 1_500_000n],
        [false, 0n],
      ]);
      const calls = jest.spyOn(JsonRpcClient.prototype, 'call');
      try {
        const together = await Promise.all([
          client.tokenAccount(holder, usdc.mint),
          client.tokenAccount(stranger, usdc.mint),
          client.tokenAccount(holder, usdc.mint),
        ]);
        expect(together).toEqual([alone[0], alone[1], alone[0]]);
        expect(calls.mock.calls.map(([method]) => method)).toEqual(['getMultipleAccounts']);
      } finally {
        calls.mockRestore();
      }
    } finally {
      await client.close();
      await node.close();
      await backend.close();
    }
  });
});

// The node's WebSocket, as a Solana client speaks to it: JSON-RPC over ws on the RPC port.
describe('signature subscriptions (the chain node over WebSocket)', () => {
  const seed = 'rpc-pubsub';
  let backend: LiteSvmChain;
  let node: ChainNode;
  let client: RpcChain;
  let socket: WebSocket;
  const messages: Record<string, unknown>[] = [];
  let id = 0;
  const next = (match: (m: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const look = () => {
        const i = messages.findIndex(match);
        if (i >= 0) return resolve(messages.splice(i, 1)[0]!);
        setTimeout(look, 2);
      };
      look();
    });
  const call = async (method: string, params: unknown[]) => {
    const request = ++id;
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: request, method, params }));
    return next((m) => m.id === request);
  };
  const notification = (subscription: unknown) =>
    next((m) => (m.params as { subscription?: unknown } | undefined)?.subscription === subscription);
  let minted = 0;
  const mint = async (owner = generateSigner().address) => {
    const f = localFixtures(seed);
    const usdc = f.mints[0]!;
    return client.prepare(
      await mintToInstructions(
        f.payer,
        f.authority,
        owner,
        usdc.mint,
        usdc.decimals,
        1n,
        `ws-${id}-${++minted}`,
      ),
      [f.authority],
    );
  };

  beforeAll(async () => {
    backend = await LiteSvmChain.open({ seed });
    node = await serveChainRpc(backend.node(), { port: 0 });
    client = RpcChain.local(node.url, seed);
    socket = new WebSocket(node.wsUrl);
    socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
    await new Promise((resolve) => socket.once('open', resolve));
  });
  afterAll(async () => {
    socket.close();
    await client.close();
    await node.close();
    await backend.close();
  });

  it('notifies a subscribed signature once it is processed, then ends the subscription', async () => {
    const tx = await mint();
    const { result: subscription } = await call('signatureSubscribe', [
      tx.signature,
      { commitment: 'confirmed' },
    ]);
    expect(typeof subscription).toBe('number');
    await client.submit(tx);
    const note = await notification(subscription);
    expect(note).toEqual({
      jsonrpc: '2.0',
      method: 'signatureNotification',
      params: { result: { context: { slot: expect.any(Number) }, value: { err: null } }, subscription },
    });
    // The node ended it: there is nothing left to unsubscribe.
    expect((await call('signatureUnsubscribe', [subscription])).error).toEqual({
      code: -32602,
      message: 'Invalid subscription id.',
    });
  });

  it('notifies at once a signature processed before the subscription arrived', async () => {
    const tx = await mint();
    await client.submit(tx);
    const { result: subscription } = await call('signatureSubscribe', [tx.signature]);
    const note = await notification(subscription);
    expect((note.params as { result: { value: unknown } }).result.value).toEqual({ err: null });
  });

  it('unsubscribes a signature still pending, which is then never notified', async () => {
    const tx = await mint();
    const { result: subscription } = await call('signatureSubscribe', [tx.signature]);
    expect(await call('signatureUnsubscribe', [subscription])).toMatchObject({ result: true });
    await client.submit(tx);
    await new Promise((r) => setTimeout(r, 50));
    expect(messages.filter((m) => m.method === 'signatureNotification')).toEqual([]);
  });

  it('confirms a transfer by the notification: with the batched status check a minute away, at once', async () => {
    const f = localFixtures(seed);
    const patient = new RpcChain({
      url: node.url,
      wsUrl: node.wsUrl,
      tokens: client.tokens,
      payer: f.payer,
      treasury: f.treasury.address,
      mintAuthority: f.authority,
      sweepMs: 60_000,
    });
    try {
      const started = Date.now();
      const tx = await mint();
      await patient.submit(tx);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await patient.status(tx.signature)).toBe('confirmed');
    } finally {
      await patient.close();
    }
  });

  it('tells a watched account of each transaction that touches it (logsSubscribe mentions), until unsubscribed', async () => {
    const owner = generateSigner().address;
    const account = await ata(owner, localFixtures(seed).mints[0]!.mint);
    const { result: subscription } = await call('logsSubscribe', [
      { mentions: [account] },
      { commitment: 'confirmed' },
    ]);
    expect(typeof subscription).toBe('number');
    const first = await mint(owner);
    await client.submit(first);
    expect(await notification(subscription)).toEqual({
      jsonrpc: '2.0',
      method: 'logsNotification',
      params: {
        result: {
          context: { slot: expect.any(Number) },
          value: { signature: first.signature, err: null, logs: [] },
        },
        subscription,
      },
    });
    // A transaction that does not touch it is not told; the next one that does is.
    await client.submit(await mint());
    const second = await mint(owner);
    await client.submit(second);
    const note = await notification(subscription);
    expect((note.params as { result: { value: { signature: string } } }).result.value.signature).toBe(
      second.signature,
    );
    expect(await call('logsUnsubscribe', [subscription])).toMatchObject({ result: true });
    await client.submit(await mint(owner));
    await new Promise((r) => setTimeout(r, 50));
    expect(messages.filter((m) => m.method === 'logsNotification')).toEqual([]);
  });

  it('refuses logsSubscribe for anything but one address', async () => {
    for (const filter of ['all', { mentions: [] }, { mentions: ['not-an-address'] }, {}])
      expect((await call('logsSubscribe', [filter])).error).toMatchObject({ code: -32602 });
  });

  it('refuses a malformed signature and an unknown method with JSON-RPC errors', async () => {
    expect((await call('signatureSubscribe', ['not-a-signature'])).error).toMatchObject({ code: -32602 });
    expect((await call('slotSubscribe', [])).error).toMatchObject({ code: -32601 });
  });
});

describe('watches ended while the WebSocket is closing (the node going away as the process stops)', () => {
  // web3.js's client, which this adapter used before pubsub.ts, retried a failed unsubscribe at once,
  // in promises alone: the process spun and never reached a timer again.
  it('leaves the process responsive: a timer still fires', async () => {
    const backend = await LiteSvmChain.open({ seed: 'closing' });
    const node = await serveChainRpc(backend.node(), { port: 0 });
    const client = RpcChain.local(node.url, 'closing');
    try {
      const stops = Array.from({ length: 20 }, () => client.watchAccount(generateSigner().address, () => {}));
      await new Promise((r) => setTimeout(r, 300)); // subscribed
      const closing = node.close(); // the node sends its close frames: the client's socket is closing
      stops.forEach((stop) => stop());
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, 50));
      expect(Date.now() - t0).toBeLessThan(1_000);
      await closing;
    } finally {
      await client.close();
      await backend.close();
    }
  });
});

describe('the node going away', () => {
  it("prints nothing while its WebSocket cannot reconnect: the process's log stays JSON lines", async () => {
    const backend = await LiteSvmChain.open({ seed: 'away' });
    const node = await serveChainRpc(backend.node(), { port: 0 });
    const client = RpcChain.local(node.url, 'away');
    const printed: unknown[][] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((...args) => void printed.push(args));
    try {
      const stop = client.watchAccount(generateSigner().address, () => undefined);
      await new Promise((r) => setTimeout(r, 500)); // subscribed: the socket is open
      await node.close();
      await new Promise((r) => setTimeout(r, 3_000)); // the client tries to reconnect meanwhile
      stop();
      await client.close();
    } finally {
      spy.mockRestore();
      await backend.close();
    }
    expect(printed).toEqual([]);
  }, 15_000);
});

describe('the node coming back', () => {
  it('subscribes again what was watched: a watched account is told of transactions after the restart', async () => {
    const seed = 'back';
    const backend = await LiteSvmChain.open({ seed });
    let node = await serveChainRpc(backend.node(), { port: 0 });
    const port = Number(new URL(node.url).port);
    const client = RpcChain.local(node.url, seed);
    const f = localFixtures(seed);
    const usdc = f.mints[0]!;
    const owner = generateSigner().address;
    const account = await ata(owner, usdc.mint);
    const mint = async (reference: string) =>
      client.prepare(
        await mintToInstructions(f.payer, f.authority, owner, usdc.mint, usdc.decimals, 1n, reference),
        [f.authority],
      );
    const touched: string[] = [];
    try {
      const stop = client.watchAccount(account, (signature) => touched.push(signature));
      const before = await mint('before');
      await client.submit(before);
      await waitFor(() => touched.includes(before.signature), 10_000);

      await node.close();
      node = await serveChainRpc(backend.node(), { port });
      // The socket opens again by itself (backing off): a mint at a time until one is told.
      let n = 0;
      await waitFor(async () => {
        if (touched.length > 1) return true;
        await client.submit(await mint(`after-${++n}`));
        return false;
      }, 10_000);
      await new Promise((r) => setTimeout(r, 200)); // any notification still on its way
      expect(new Set(touched).size).toBe(touched.length); // each told once: nothing twice after the restart
      stop();
    } finally {
      await client.close();
      await node.close();
      await backend.close();
    }
  }, 20_000);
});
