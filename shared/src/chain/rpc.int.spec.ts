import { chainContract } from './contract';
import { LiteSvmChain } from './litesvm';
import { RpcChain, awaitConfirmation } from './rpc';
import { serveChainRpc } from './rpc-node';
import type { SignatureStatus } from './port';

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

describe('confirmation over RPC', () => {
  const script = (statuses: SignatureStatus[], heights: number[]) => {
    let s = 0;
    let h = 0;
    return {
      status: async () => statuses[Math.min(s++, statuses.length - 1)]!,
      height: async () => heights[Math.min(h++, heights.length - 1)]!,
    };
  };

  it('waits until the signature lands', async () => {
    const { status, height } = script(['unknown', 'unknown', 'confirmed'], [10, 11, 12]);
    await expect(awaitConfirmation(status, height, 100n, 1)).resolves.toBeUndefined();
  });

  it('reports a transaction that did not land before its blockhash expired', async () => {
    const { status, height } = script(['unknown'], [99, 100, 101]);
    await expect(awaitConfirmation(status, height, 100n, 1)).rejects.toThrow(/BlockhashExpired/);
  });

  it('still accepts one that landed right at expiry', async () => {
    const { status, height } = script(['unknown', 'confirmed'], [101]);
    await expect(awaitConfirmation(status, height, 100n, 1)).resolves.toBeUndefined();
  });

  it('reports a failed transaction', async () => {
    const { status, height } = script(['failed'], [1]);
    await expect(awaitConfirmation(status, height, 100n, 1)).rejects.toThrow(/failed/);
  });
});
