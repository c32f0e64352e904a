/** The aggregator's contract, run against every adapter (local pools on LiteSVM, Jupiter on a local server). */
import Big from 'big.js';
import type { BuildContext } from '../chain/transactions';
import { MEMO_PROGRAM_ADDRESS } from '../chain/transactions';
import { AggregatorUnavailable, BelowMinimum, NoRoute, type Aggregator } from './port';

export interface AggregatorFixture {
  aggregator: Aggregator;
  build: BuildContext;
  /** Two mints the aggregator routes between, and an amount of the first that buys some of the second. */
  inputMint: string;
  outputMint: string;
  amount: bigint;
  /** A mint it has no route to. */
  unrouted: string;
  /** A wallet to build swaps for. */
  agent: string;
  close(): Promise<void>;
}

export function aggregatorContract(name: string, open: () => Promise<AggregatorFixture>): void {
  describe(`aggregator contract: ${name}`, () => {
    let f: AggregatorFixture;
    beforeAll(async () => {
      f = await open();
    });
    afterAll(async () => {
      await f.close();
    });
    const ask = (amount = f.amount, slippageBps = 50) =>
      f.aggregator.quote({ inputMint: f.inputMint, outputMint: f.outputMint, amount, slippageBps });

    it('quotes the amount asked: output, the threshold at the slippage, a price impact, a route, an expiry', async () => {
      const q = await ask(f.amount, 100);
      expect(q).toEqual(expect.objectContaining({ inputMint: f.inputMint, outputMint: f.outputMint }));
      expect(q.inAmount).toBe(f.amount);
      expect(q.outAmount > 0n).toBe(true);
      expect(q.slippageBps).toBe(100);
      expect(q.otherAmountThreshold).toBe(q.outAmount - (q.outAmount * 100n) / 10_000n);
      expect(new Big(q.priceImpact).gte(0) && new Big(q.priceImpact).lt(1)).toBe(true);
      expect(q.route.length).toBeGreaterThan(0);
      expect(q.expiresAt).toBeGreaterThan(Date.now());
    });

    it('never quotes less output for more input', async () => {
      const small = await ask(f.amount);
      const large = await ask(f.amount * 10n);
      expect(large.outAmount >= small.outAmount).toBe(true);
    });

    it('has no route to a mint it does not trade (NoRoute, an AggregatorUnavailable)', async () => {
      const err = await f.aggregator
        .quote({ inputMint: f.inputMint, outputMint: f.unrouted, amount: f.amount, slippageBps: 50 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NoRoute);
      expect(err).toBeInstanceOf(AggregatorUnavailable);
    });

    it('refuses a non-positive amount and a slippage above 100 % before asking anything', async () => {
      await expect(ask(0n)).rejects.toBeInstanceOf(RangeError);
      await expect(ask(f.amount, 10_001)).rejects.toBeInstanceOf(RangeError);
    });

    it('builds a swap from the live quote, the memo naming the intent first', async () => {
      const q = await ask();
      const swap = await f.aggregator.swap(
        {
          agent: f.agent,
          inputMint: f.inputMint,
          outputMint: f.outputMint,
          amount: f.amount,
          minimumOut: q.otherAmountThreshold,
          reference: 'intent:contract',
        },
        f.build,
      );
      expect(swap.quote.outAmount >= q.otherAmountThreshold).toBe(true);
      expect(swap.instructions[0]!.programAddress).toBe(MEMO_PROGRAM_ADDRESS);
      expect(new TextDecoder().decode(swap.instructions[0]!.data as Uint8Array)).toBe('intent:contract');
    });

    it('refuses with BelowMinimum, building nothing, when the live output is under the minimum', async () => {
      const q = await ask();
      const err = await f.aggregator
        .swap(
          {
            agent: f.agent,
            inputMint: f.inputMint,
            outputMint: f.outputMint,
            amount: f.amount,
            minimumOut: q.outAmount + 1n,
            reference: 'intent:too-much',
          },
          f.build,
        )
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BelowMinimum);
      expect(err).toEqual(expect.objectContaining({ expected: q.outAmount + 1n, live: q.outAmount }));
    });
  });
}
