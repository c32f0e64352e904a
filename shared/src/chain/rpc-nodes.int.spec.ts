/**
 * Several RPC nodes behind one caller (rpc-nodes.ts), against local chain nodes on loopback: one that
 * does not answer is set aside and named by host and port only, never its key; one that lags is set
 * aside too and reads come from the one ahead; a transaction sent to both lands once.
 */
import { freePort } from '@tokenops/testing/ports';
import { generateSigner } from './keys';
import { LiteSvmChain } from './litesvm';
import { serveChainRpc, type ChainNode } from './rpc-node';
import { RpcNodes } from './rpc-nodes';
import { RpcChain } from './rpc';
import { DependencyUnavailable } from '../errors/unavailable';

const seed = 'rpc-nodes';

describe('several RPC nodes', () => {
  let backend: LiteSvmChain;
  let node: ChainNode;
  beforeAll(async () => {
    backend = await LiteSvmChain.open({ seed });
    node = await serveChainRpc(backend.node(), { port: 0 });
  });
  afterAll(async () => {
    await node.close();
  });

  it('sets aside a node that does not answer, names it by host and port only, and works on the other', async () => {
    const away = `http://127.0.0.1:${await freePort()}/v2/key-SECRET-1?api-key=SECRET-2`;
    const chain = RpcChain.local([away, node.url], seed);
    try {
      const owner = generateSigner().address;
      const usdc = chain.tokens[0]!.mint;
      await chain.mintTo(owner, usdc, 1_000_000n, 'once');
      expect((await chain.tokenAccount(owner, usdc)).amount).toBe(1_000_000n); // landed once
      const report = await chain.health(1_000);
      expect(report).toEqual([
        expect.objectContaining({ node: new URL(away).host, healthy: false, errors: expect.any(Number) }),
        expect.objectContaining({ node: new URL(node.url).host, healthy: true, errors: 0 }),
      ]);
      expect(report[0]!.errors).toBeGreaterThan(0);
      expect(JSON.stringify(report)).not.toMatch(/SECRET/);
    } finally {
      await chain.close();
    }
  });

  it('with every node away, a call says the chain is unavailable, naming no key', async () => {
    const away = `http://127.0.0.1:${await freePort()}/key-SECRET`;
    const other = `http://127.0.0.1:${await freePort()}/?token=SECRET`;
    const nodes = new RpcNodes([away, other], { probeMs: 60_000 });
    try {
      const err = await nodes.call('getSlot').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DependencyUnavailable);
      expect((err as Error).message).toMatch(
        /^the chain \(Solana JSON-RPC\) is unavailable: node 127\.0\.0\.1:\d+/,
      );
      expect((err as Error).message).not.toMatch(/SECRET/);
      await expect(nodes.health(500)).rejects.toThrow(/no RPC node is healthy/);
    } finally {
      await nodes.close();
    }
  });

  it('sets aside a node more than the allowed slots behind, reads from the one ahead, and takes it back once it catches up', async () => {
    const behindBackend = await LiteSvmChain.open({ seed });
    const behind = await serveChainRpc(behindBackend.node(), { port: 0 });
    const nodes = new RpcNodes([behind.url, node.url], { maxSlotLag: 50, probeMs: 60_000 });
    try {
      await backend.passSlots(100);
      await nodes.probe();
      const report = nodes.report();
      expect(report[0]).toMatchObject({
        healthy: false,
        reason: expect.stringMatching(/^1\d\d slots behind$/),
      });
      expect(report[1]).toMatchObject({ healthy: true });
      // A read goes to the node ahead: its slot, not the other's.
      expect(await nodes.call<number>('getSlot')).toBe(report[1]!.slot);
      await behindBackend.passSlots(100);
      await nodes.probe();
      expect(nodes.report().map((n) => n.healthy)).toEqual([true, true]);
    } finally {
      await nodes.close();
      await behind.close();
    }
  });
});
