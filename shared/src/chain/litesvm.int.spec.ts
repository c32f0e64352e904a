import { lamports, type Address } from '@solana/kit';
import bs58 from 'bs58';
import { LiteSVM } from 'litesvm';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainContract } from './contract';
import { generateSigner } from './keys';
import { prepareTransfer } from './transactions';
import { LiteSvmChain } from './litesvm';
import { localFixtures } from './local-fixtures';

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
    await first.warp(86_400n);
    await first.close();

    const second = await LiteSvmChain.open({ stateFile });
    expect(second.tokens).toEqual(first.tokens);
    expect(await second.clock()).toBe(86_400n);
    expect((await second.balances(alice.address)).get(usdc.mint)).toBe(2_000_000n);
    expect((await second.balances(bob.address)).get(usdc.mint)).toBe(999_000n);
    expect(await second.status(tx.signature)).toBe('confirmed');
    await second.close();
  });
});

describe('a LiteSVM state file from before the lending venue', () => {
  it('gets the receipt mints at its next start, and keeps everything else', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'chain-')), 'chain.bin');
    const first = await LiteSvmChain.open({ stateFile });
    const alice = generateSigner();
    await first.mintTo(alice.address, first.tokens[0]!.mint, 7n, 'airdrop');
    await first.close();
    // Take the receipt mints out, as the chain was before they existed.
    const receipts = localFixtures().venue.receipts;
    const old = LiteSVM.loadFromFile(stateFile);
    for (const r of receipts) {
      old.setAccount({
        address: r.mint as Address,
        lamports: lamports(0n),
        programAddress: '11111111111111111111111111111111' as Address,
        executable: false,
        data: new Uint8Array(),
        space: 0n,
      });
      expect(old.getAccount(r.mint as Address).exists).toBe(false);
    }
    writeFileSync(stateFile, old.toBytes());

    const second = await LiteSvmChain.open({ stateFile });
    for (const r of receipts) {
      const mint = await second.readAccount(r.mint);
      expect(mint?.data[44]).toBe(r.decimals);
      // its mint authority is the venue's
      expect(bs58.encode(mint!.data.subarray(4, 36))).toBe(localFixtures().venue.authority.address);
    }
    expect((await second.balances(alice.address)).get(second.tokens[0]!.mint)).toBe(7n);
    await second.close();
  });
});
