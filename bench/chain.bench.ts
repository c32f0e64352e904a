/** LiteSVM transfers with fee, built and signed by the chain adapter, beside LiteSVM executing pre-signed ones. */
import { generateSigner } from '@tokenops/shared';
import { LiteSvmChain } from '@tokenops/shared/adapters';
import { prepareTransfer } from '@tokenops/shared';
import { measure, report } from './harness';

export async function chainBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const chain = await LiteSvmChain.open();
  const usdc = chain.tokens[0]!;
  const senders = Array.from({ length: 8 }, () => generateSigner());
  const recipients = Array.from({ length: 32 }, () => generateSigner());
  for (const s of senders) await chain.mintTo(s.address, usdc.mint, 10n ** 15n, `fund-${s.address}`);
  for (const r of recipients) await chain.mintTo(r.address, usdc.mint, 1n, `open-${r.address}`);
  const transfer = (i: number, tag: string) => ({
    from: senders[i % senders.length]!,
    to: recipients[i % recipients.length]!.address,
    mint: usdc.mint,
    decimals: 6,
    net: 999_000n,
    fee: 1_000n,
    treasury: chain.treasury,
    reference: `${tag}-${i}`,
  });
  const n = 5000 * scale;
  for (let i = 0; i < 500; i++) await chain.submit(await prepareTransfer(chain, transfer(i, 'warm')));

  const presigned: Awaited<ReturnType<typeof prepareTransfer>>[] = [];
  for (let i = 0; i < n; i++) presigned.push(await prepareTransfer(chain, transfer(i, 'pre')));
  const floor = await measure('LiteSVM executing pre-signed transfers', n, 1, async (_w, i) => {
    await chain.submit(presigned[i]!);
  });
  const full = await measure('transfer with fee: build, sign, execute', n, 1, async (_w, i) => {
    await chain.submit(await prepareTransfer(chain, transfer(i, 'full')));
  });
  await chain.close();
  return report('Chain (LiteSVM 1.5.0, in process)', [
    {
      name: 'transfers with fee, signed (node:crypto ed25519)',
      value: full,
      unit: 'tx/s',
      baseline: { name: 'pre-signed execution', value: floor },
      target: '>= 2,000 tx/s',
    },
  ]);
}
