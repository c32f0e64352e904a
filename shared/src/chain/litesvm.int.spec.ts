import { lamports, type Address } from '@solana/kit';
import bs58 from 'bs58';
import { LiteSVM } from 'litesvm';
import { appendFileSync, cpSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainContract } from './contract';
import { generateSigner } from './keys';
import { ata, prepareTransfer } from './transactions';
import { LiteSvmChain } from './litesvm';
import { StateJournal } from './journal';
import { localFixtures } from './local-fixtures';

chainContract('LiteSVM', () => LiteSvmChain.open());

async function world() {
  const stateFile = join(mkdtempSync(join(tmpdir(), 'chain-')), 'chain.bin');
  const chain = await LiteSvmChain.open({ stateFile, history: 100 });
  const usdc = chain.tokens[0]!;
  const alice = generateSigner();
  const bob = generateSigner();
  const transfer = (reference: string) =>
    prepareTransfer(chain, {
      from: alice,
      to: bob.address,
      mint: usdc.mint,
      decimals: 6,
      net: 999_000n,
      fee: 1_000n,
      treasury: chain.treasury,
      reference,
    }).then((tx) => chain.submit(tx).then(() => tx.signature));
  return { stateFile, chain, usdc, alice, bob, transfer };
}

describe('the LiteSVM chain across a restart', () => {
  it('keeps its mints, accounts, balances and transactions in its state file', async () => {
    const { stateFile, chain: first, usdc, alice, bob, transfer } = await world();
    await first.mintTo(alice.address, usdc.mint, 3_000_000n, 'airdrop');
    const signature = await transfer('i-1');
    await first.warp(86_400n);
    await first.close();

    const second = await LiteSvmChain.open({ stateFile, history: 100 });
    expect(second.tokens).toEqual(first.tokens);
    expect(await second.clock()).toBe(86_400n);
    expect((await second.balances(alice.address)).get(usdc.mint)).toBe(2_000_000n);
    expect((await second.balances(bob.address)).get(usdc.mint)).toBe(999_000n);
    expect(await second.status(signature)).toBe('confirmed');
    await second.close();
  });
});

describe('the LiteSVM chain state file', () => {
  it('does not grow with the transactions that land (the runtime keeps no history in it to outgrow its snapshot)', async () => {
    const sizeAfter = async (transfers: number) => {
      const { stateFile, chain, usdc, alice, bob } = await world();
      await chain.mintTo(alice.address, usdc.mint, 10n ** 12n, 'airdrop');
      for (let i = 0; i < transfers; i++)
        await prepareTransfer(chain, {
          from: alice,
          to: bob.address,
          mint: usdc.mint,
          decimals: 6,
          net: 1n,
          fee: 0n,
          treasury: chain.treasury,
          reference: `grow-${i}`,
        }).then((tx) => chain.submit(tx));
      await chain.close();
      return statSync(stateFile).size;
    };
    // The same accounts but bob's: what 1,500 transactions add is in the ledger and history beside it.
    expect((await sizeAfter(1_500)) - (await sizeAfter(1))).toBeLessThan(10_000);
  });
});

describe('the LiteSVM chain after a crash', () => {
  /** What is on disk at this moment, as a process killed now leaves it: a copy of its folder. */
  const crashImage = (stateFile: string) => {
    const copy = join(mkdtempSync(join(tmpdir(), 'crashed-')), 'chain');
    cpSync(join(stateFile, '..'), copy, { recursive: true });
    return join(copy, 'chain.bin');
  };

  it('keeps every transaction, airdrop and clock move it answered, though the state was not written since', async () => {
    const { stateFile, chain, usdc, alice, bob, transfer } = await world();
    await chain.mintTo(alice.address, usdc.mint, 3_000_000n, 'airdrop');
    const first = await transfer('i-1');
    const second = await transfer('i-2');
    await chain.fund(bob.address, 5_000_000n);
    await chain.warp(3_600n);
    const image = crashImage(stateFile); // within a second of the answers: no snapshot yet

    const restarted = await LiteSvmChain.open({ stateFile: image, history: 100 });
    expect((await restarted.balances(alice.address)).get(usdc.mint)).toBe(1_000_000n);
    expect((await restarted.balances(bob.address)).get(usdc.mint)).toBe(1_998_000n);
    expect((await restarted.readAccount(bob.address))?.lamports).toBe(5_000_000n);
    expect(await restarted.clock()).toBe(3_600n);
    expect(await restarted.status(first)).toBe('confirmed');
    expect(await restarted.status(second)).toBe('confirmed');
    // what it reads from its history came back too
    const payments = await restarted.incomingPayments(bob.address, [usdc.mint]);
    expect(payments.payments.map((p) => p.signature).sort()).toEqual([first, second].sort());
    await restarted.close();
    await chain.close();
  });

  it('drops a journal line torn by the crash, and goes on journaling after it', async () => {
    const { stateFile, chain, usdc, alice } = await world();
    await chain.mintTo(alice.address, usdc.mint, 3_000_000n, 'airdrop');
    const image = crashImage(stateFile);
    appendFileSync(`${image}.journal`, '{"tx":"AQ'); // the process died writing this line
    await chain.close();

    const restarted = await LiteSvmChain.open({ stateFile: image, history: 100 });
    expect((await restarted.balances(alice.address)).get(usdc.mint)).toBe(3_000_000n);
    await restarted.mintTo(alice.address, usdc.mint, 4n, 'after');
    const again = await LiteSvmChain.open({ stateFile: crashImage(image), history: 100 });
    expect((await again.balances(alice.address)).get(usdc.mint)).toBe(3_000_004n);
    await again.close();
    await restarted.close();
  });

  it('does not apply a journal twice when it died between writing the state and starting the next journal', async () => {
    const { stateFile, chain, bob } = await world();
    await chain.fund(bob.address, 5_000_000n);
    const before = crashImage(stateFile); // the journal holds the airdrop
    await chain.close(); // the state now holds it
    cpSync(stateFile, before); // the new state, beside the journal it already holds

    const restarted = await LiteSvmChain.open({ stateFile: before });
    expect((await restarted.readAccount(bob.address))?.lamports).toBe(5_000_000n);
    await restarted.close();
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
    const old = LiteSVM.fromBytes(StateJournal.open(stateFile).restored.state!);
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

describe('the LiteSVM chain tells who watches an account', () => {
  it('the signature of each transaction that touches the account, and nothing once unwatched', async () => {
    const { chain, usdc, alice, bob, transfer } = await world();
    const bobsAccount = await ata(bob.address, usdc.mint);
    const told: string[] = [];
    const unwatch = chain.watchAccount(bobsAccount, (signature) => told.push(signature));
    const minted = await chain.mintTo(alice.address, usdc.mint, 3_000_000n, 'airdrop');
    const paid = await transfer('i-1');
    expect(told).toEqual([paid]); // the mint to alice does not touch bob's account
    expect(told).not.toContain(minted);
    unwatch();
    await transfer('i-2');
    expect(told).toEqual([paid]);
    await chain.close();
  });
});
