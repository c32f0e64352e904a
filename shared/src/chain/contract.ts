/** The chain's contract, run against every adapter: real transactions on the real SPL Token program. */
import { classifyChainFailure } from '../domain/chain-outcome';
import { isAddress } from '../domain/tokens';
import { generateSigner } from './keys';
import { prepareTransfer } from './transactions';
import { ChainFailure, type LocalChain } from './port';

export function chainContract(name: string, open: () => Promise<LocalChain>): void {
  describe(`chain contract: ${name}`, () => {
    let chain: LocalChain;
    beforeAll(async () => {
      chain = await open();
    });
    afterAll(async () => {
      await chain.close();
    });
    const usdc = () => chain.tokens.find((t) => t.symbol === 'USDC')!;
    const transfer = (
      from: ReturnType<typeof generateSigner>,
      to: string,
      net: bigint,
      fee: bigint,
      reference: string,
    ) =>
      prepareTransfer(chain, {
        from,
        to,
        mint: usdc().mint,
        decimals: 6,
        net,
        fee,
        treasury: chain.treasury,
        reference,
      });
    const failureOf = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ChainFailure);
      return err as ChainFailure;
    };

    it('lists its tokens: a 6-decimal stablecoin, a second token, and the lending venue receipt tokens', () => {
      expect(chain.tokens.map((t) => [t.symbol, t.decimals])).toEqual([
        ['USDC', 6],
        ['SOL', 9],
        ['kUSDC', 6],
        ['kSOL', 9],
      ]);
      for (const t of chain.tokens) expect(isAddress(t.mint)).toBe(true);
      expect(new Set(chain.tokens.map((t) => t.mint)).size).toBe(4);
      expect(isAddress(chain.treasury)).toBe(true);
    });

    it('holds every registry mint as an SPL Token mint account with the listed decimals', async () => {
      for (const t of chain.tokens) {
        const account = await chain.readAccount(t.mint);
        expect(account?.owner).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
        expect(account?.data.length).toBe(82);
        expect(account?.data[44]).toBe(t.decimals); // Mint: authority option (36), supply (8), decimals
      }
      expect(await chain.readAccount(generateSigner().address)).toBeUndefined();
    });

    it('refuses to mint a venue receipt token as an outside payment: only a deposit mints it', async () => {
      const kusdc = chain.tokens.find((t) => t.symbol === 'kUSDC')!;
      const alice = generateSigner();
      expect(chain.mintable(usdc().mint)).toBe(true);
      expect(chain.mintable(kusdc.mint)).toBe(false);
      await failureOf(chain.mintTo(alice.address, kusdc.mint, 1_000_000n, 'airdrop-receipt'));
      expect((await chain.balances(alice.address)).get(kusdc.mint)).toBe(0n);
    });

    it("tells the chain's time from the Clock sysvar, and moves it forward by exactly what it is asked", async () => {
      const before = await chain.clock();
      expect(await chain.warp(365n * 86_400n)).toBe(before + 365n * 86_400n);
      expect(await chain.clock()).toBe(before + 365n * 86_400n);
      await expect(chain.warp(-1n)).rejects.toThrow();
      expect(await chain.clock()).toBe(before + 365n * 86_400n);
      // transactions still land after the clock moved
      const alice = generateSigner();
      await chain.mintTo(alice.address, usdc().mint, 1n, `airdrop-after-warp`);
      expect((await chain.balances(alice.address)).get(usdc().mint)).toBe(1n);
    });

    it('pays an address as an outside party (local chain), creating its token account', async () => {
      const alice = generateSigner();
      expect(await chain.tokenAccount(alice.address, usdc().mint)).toEqual(
        expect.objectContaining({ exists: false, amount: 0n }),
      );
      const sig = await chain.mintTo(alice.address, usdc().mint, 5_000_000n, 'airdrop-test-1');
      expect(await chain.status(sig)).toBe('confirmed');
      expect((await chain.balances(alice.address)).get(usdc().mint)).toBe(5_000_000n);
      expect(await chain.tokenAccount(alice.address, usdc().mint)).toEqual(
        expect.objectContaining({ exists: true, amount: 5_000_000n }),
      );
    });

    it('moves the net amount to the recipient and the fee to the treasury in one transaction', async () => {
      const alice = generateSigner();
      const bob = generateSigner();
      await chain.mintTo(alice.address, usdc().mint, 10_000_000n, `airdrop-${alice.address}`);
      const treasuryBefore = (await chain.tokenAccount(chain.treasury, usdc().mint)).amount;
      const tx = await transfer(alice, bob.address, 2_497_500n, 2_500n, 'intent-a');
      expect(await chain.status(tx.signature)).toBe('unknown'); // signed, not yet sent
      await chain.submit(tx);
      expect(await chain.status(tx.signature)).toBe('confirmed');
      expect((await chain.balances(alice.address)).get(usdc().mint)).toBe(7_500_000n);
      expect((await chain.balances(bob.address)).get(usdc().mint)).toBe(2_497_500n);
      expect((await chain.tokenAccount(chain.treasury, usdc().mint)).amount - treasuryBefore).toBe(2_500n);
    });

    it('lands a transaction only while its blockhash is valid: up to 150 blocks from it, then BlockhashNotFound', async () => {
      const alice = generateSigner();
      const bob = generateSigner();
      await chain.mintTo(alice.address, usdc().mint, 1_000_000n, `airdrop-${alice.address}`);
      const latest = await chain.latestBlockhash();
      const height = await chain.blockHeight();
      expect(latest.lastValidBlockHeight - height).toBeGreaterThan(100n);
      expect(latest.lastValidBlockHeight - height).toBeLessThanOrEqual(150n);
      const stale = await transfer(alice, bob.address, 1_000n, 0n, 'intent-stale');
      await chain.passSlots(Number(stale.lastValidBlockHeight - (await chain.blockHeight())) + 1);
      expect(await chain.blockHeight()).toBeGreaterThan(stale.lastValidBlockHeight);
      expect((await failureOf(chain.submit(stale))).error).toMatch(/BlockhashNotFound|BlockhashExpired/);
      expect(await chain.status(stale.signature)).toBe('unknown');
      expect((await chain.balances(bob.address)).get(usdc().mint)).toBe(0n);
    });

    it('never applies the same transaction twice', async () => {
      const alice = generateSigner();
      const bob = generateSigner();
      await chain.mintTo(alice.address, usdc().mint, 1_000_000n, `airdrop-${alice.address}`);
      const tx = await transfer(alice, bob.address, 400_000n, 0n, 'intent-twice');
      await chain.submit(tx);
      await failureOf(chain.submit(tx));
      expect((await chain.balances(bob.address)).get(usdc().mint)).toBe(400_000n);
      expect(await chain.status(tx.signature)).toBe('confirmed');
    });

    it('fails a transfer above the balance with insufficient funds, and moves nothing', async () => {
      const alice = generateSigner();
      const bob = generateSigner();
      await chain.mintTo(alice.address, usdc().mint, 1_000n, `airdrop-${alice.address}`);
      const failure = await failureOf(
        transfer(alice, bob.address, 1_000n, 1n, 'intent-poor').then((tx) => chain.submit(tx)),
      );
      expect(classifyChainFailure(failure)).toBe('insufficient_balance');
      expect((await chain.balances(alice.address)).get(usdc().mint)).toBe(1_000n);
      expect((await chain.balances(bob.address)).get(usdc().mint)).toBe(0n);
    });

    it('fails a transfer from a wallet with no token account as account_not_initialized', async () => {
      const nobody = generateSigner();
      const failure = await failureOf(
        transfer(nobody, generateSigner().address, 1n, 0n, 'intent-empty').then((tx) => chain.submit(tx)),
      );
      expect(classifyChainFailure(failure)).toBe('account_not_initialized');
    });

    it('still knows, and still refuses, a transaction after thousands of others', async () => {
      const alice = generateSigner();
      const bob = generateSigner();
      await chain.mintTo(alice.address, usdc().mint, 10_000_000n, `airdrop-${alice.address}`);
      const first = await transfer(alice, bob.address, 1n, 0n, 'intent-old');
      await chain.submit(first);
      for (let i = 0; i < 200; i++)
        await chain.submit(await transfer(alice, bob.address, 1n, 0n, `intent-old-${i}`));
      expect(await chain.status(first.signature)).toBe('confirmed');
      await failureOf(chain.submit(first));
      expect((await chain.balances(bob.address)).get(usdc().mint)).toBe(201n);
    });

    it('knows nothing of a signature it never saw', async () => {
      expect(
        await chain.status(
          '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
        ),
      ).toBe('unknown');
    });
  });
}
