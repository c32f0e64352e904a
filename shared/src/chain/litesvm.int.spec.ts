import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainContract } from './contract';
import { generateSigner } from './keys';
import { prepareTransfer } from './transactions';
import { LiteSvmChain } from './litesvm';

chainContract('LiteSVM', () => LiteSvmChain.open());

describe('the LiteSVM chain across a restart', () => {
  it('keeps its mints, accounts, balances and transactions in its state file', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'chain-')), 'chain.bin');
    const first = await LiteSvmChain.open({ stateFile });
    const usdc = first.tokens[0]!;
    const alice = generateSigner();
    const bob = generateSigner();
    await first.mintTo(alice.address, usdc.mint, 3_000_000n, 'airdrop');
    const tx = await prepareTransfer(first, {
      from: alice,
      to: bob.address,
      mint: usdc.mint,
      decimals: 6,
      net: 999_000n,
      fee: 1_000n,
      treasury: first.treasury,
      reference: 'i-1',
    });
    await first.submit(tx);
    await first.close();

    const second = await LiteSvmChain.open({ stateFile });
    expect(second.tokens).toEqual(first.tokens);
    expect((await second.balances(alice.address)).get(usdc.mint)).toBe(2_000_000n);
    expect((await second.balances(bob.address)).get(usdc.mint)).toBe(999_000n);
    expect(await second.status(tx.signature)).toBe('confirmed');
    await second.close();
  });
});
