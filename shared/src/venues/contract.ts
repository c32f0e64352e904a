/**
 * The lending venue's contract: what the deposit and withdrawal handlers and `GET /venues` rely on,
 * written once, run by each adapter's spec (`local.int.spec.ts`: the local venue on LiteSVM in process
 * and over JSON-RPC). A venue is tested on a local chain the test can fund and warp, the way callers
 * use it: ask for a plan, sign it with `[agent, ...plan.signers]`, submit it, read balances and the
 * position; each test funds agents of its own. The venue under test earns interest (a rate above zero),
 * and its rate may have grown by the time a test runs (no test assumes a rate of 1).
 *
 * Kamino (klend): there is no klend adapter to run this against, and none of it could run here. A
 * klend venue reads its mints and receipt mints from its lending market's reserve accounts and builds
 * instructions for the klend program, which is not on the local chain (no program can be deployed on
 * these machines), so every operation of the port needs that program. What of klend exists,
 * `venues/klend.ts` (its instruction layouts and the `cpi_data` check the local venue applies), is
 * tested on its own in `klend.unit.spec.ts`.
 */
import { generateSigner, type Signer } from '../chain/keys';
import { ChainFailure, type LocalChain } from '../chain/port';
import { classifyChainFailure } from '../domain/chain-outcome';
import { SECONDS_PER_YEAR, U64_MAX, rateBelow, type ExchangeRate } from '../domain/venue';
import {
  VenueDataRejected,
  VenueRefused,
  venueListing,
  type LendingVenue,
  type VenuePlan,
  type VenueRefusal,
} from './port';

export interface VenueWorld {
  venue: LendingVenue;
  /** The chain the venue's plans are signed and submitted on. */
  chain: LocalChain;
  close(): Promise<void>;
}

export interface OpenVenue {
  /**
   * A fresh chain with the venue on it. `noInterestReserve`: the venue holds only what is deposited
   * into it (nothing set aside to pay interest from), so interest can outgrow what it can pay.
   */
  (options?: { noInterestReserve?: boolean }): Promise<VenueWorld>;
}

/** An SPL mint account: its supply (u64 at 36) and decimals (u8 at 44). */
const mintAccount = async (chain: LocalChain, mint: string) => {
  const data = Buffer.from((await chain.readAccount(mint))!.data);
  return { supply: data.readBigUInt64LE(36), decimals: data[44]! };
};

/** floor(amount / rate) and floor(receipt × rate): what a deposit mints and a withdrawal pays, at most. */
const isFloorOfDivision = (amount: bigint, receipt: bigint, rate: ExchangeRate) =>
  receipt * rate.numerator <= amount * rate.denominator &&
  amount * rate.denominator < (receipt + 1n) * rate.numerator;
const isFloorOfProduct = (receipt: bigint, paid: bigint, rate: ExchangeRate) =>
  paid * rate.denominator <= receipt * rate.numerator &&
  receipt * rate.numerator < (paid + 1n) * rate.denominator;

async function refusal(p: Promise<unknown>): Promise<VenueRefused> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VenueRefused);
  return err as VenueRefused;
}

export function lendingVenueContract(name: string, open: OpenVenue): void {
  describe(`lending venue contract: ${name}`, () => {
    let w: VenueWorld;
    let underlying: string;
    let receipt: string;
    let unit: bigint;
    /** Everyone the suite gave tokens to: together they hold every receipt token. */
    const agents: Signer[] = [];

    beforeAll(async () => {
      w = await open();
      underlying = w.venue.mints[0]!;
      receipt = w.venue.receiptMint(underlying)!;
      unit = 10n ** BigInt((await mintAccount(w.chain, underlying)).decimals);
    });
    afterAll(async () => w?.close());

    const funded = async (amount: bigint, world = w, mint = underlying) => {
      const agent = generateSigner();
      agents.push(agent);
      if (amount > 0n) await world.chain.mintTo(agent.address, mint, amount, `airdrop-${agent.address}`);
      return agent;
    };
    const run = async (agent: Signer, plan: VenuePlan, world = w) => {
      const tx = await world.chain.prepare(plan.instructions, [agent, ...plan.signers]);
      await world.chain.submit(tx);
      return tx.signature;
    };
    const held = async (agent: Signer, mint: string, world = w) =>
      (await world.chain.tokenAccount(agent.address, mint)).amount;
    const holdings = async (agent: Signer) => [await held(agent, underlying), await held(agent, receipt)];
    const deposit = (agent: Signer, amount: bigint, mint = underlying, world = w) =>
      world.venue.deposit({ agent: agent.address, mint, amount, reference: `deposit:${agent.address}` });
    const withdraw = (agent: Signer, receiptAmount: bigint, mint = underlying, world = w) =>
      world.venue.withdraw({
        agent: agent.address,
        mint,
        receiptAmount,
        reference: `withdraw:${agent.address}`,
      });

    it('lists itself for GET /venues and names, for each mint it takes, its receipt mint: either names the position', () => {
      const { venue } = w;
      expect(venue.program).toEqual(expect.any(String));
      expect(venue.name).toEqual(expect.any(String));
      expect(venue.mints.length).toBeGreaterThan(0);
      const receipts = venue.mints.map((m) => venue.receiptMint(m));
      for (const [i, mint] of venue.mints.entries()) {
        const r = receipts[i]!;
        expect(r).toEqual(expect.any(String));
        expect(r).not.toBe(mint);
        expect(venue.underlyingOf(mint)).toBe(mint);
        expect(venue.underlyingOf(r)).toBe(mint);
        expect(venue.receiptMint(r)).toBeUndefined(); // a receipt token is not one it takes
      }
      expect(new Set(receipts).size).toBe(venue.mints.length);
      expect(venue.underlyingOf(generateSigner().address)).toBeUndefined();
      expect(venue.receiptMint(generateSigner().address)).toBeUndefined();
      expect(venueListing([venue])).toEqual({
        venues: [{ lending_program: venue.program, name: venue.name, mints: [...venue.mints] }],
      });
    });

    it('deposits in one transaction: the agent pays the amount and receives the receipt tokens the plan says, at its rate', async () => {
      const agent = await funded(1_000n * unit);
      const plan = await deposit(agent, 250n * unit);
      expect(plan).toEqual(expect.objectContaining({ underlyingMint: underlying, receiptMint: receipt }));
      expect(plan.rate).toEqual(await w.venue.exchangeRate(underlying));
      expect(isFloorOfDivision(250n * unit, plan.receiptAmount, plan.rate)).toBe(true);
      expect(plan.signers.map((s) => s.address)).not.toContain(agent.address);
      expect(await holdings(agent)).toEqual([1_000n * unit, 0n]); // nothing moves before it is submitted
      expect(await w.chain.status(await run(agent, plan))).toBe('confirmed');
      expect(await holdings(agent)).toEqual([750n * unit, plan.receiptAmount]);
    });

    it('withdraws in one transaction, named by the underlying or the receipt mint: burns the receipt tokens and pays what the plan says', async () => {
      const agent = await funded(100n * unit);
      const { receiptAmount: minted } = await deposit(agent, 100n * unit).then(async (p) => {
        await run(agent, p);
        return p;
      });
      const part = minted / 3n;
      const byReceipt = await withdraw(agent, part, receipt);
      expect(byReceipt).toEqual(
        expect.objectContaining({ underlyingMint: underlying, receiptMint: receipt }),
      );
      expect(isFloorOfProduct(part, byReceipt.underlyingAmount, byReceipt.rate)).toBe(true);
      expect(byReceipt.signers.map((s) => s.address)).not.toContain(agent.address);
      await run(agent, byReceipt);
      expect(await holdings(agent)).toEqual([byReceipt.underlyingAmount, minted - part]);

      const rest = await withdraw(agent, minted - part, underlying);
      await run(agent, rest);
      expect(await holdings(agent)).toEqual([byReceipt.underlyingAmount + rest.underlyingAmount, 0n]);
    });

    it("reads an owner's position by either mint: the receipt tokens held and what redeeming them all pays now", async () => {
      const agent = await funded(40n * unit);
      const stranger = generateSigner();
      expect(await w.venue.position(stranger.address, underlying)).toEqual({
        underlyingMint: underlying,
        receiptMint: receipt,
        receipt: 0n,
        underlying: 0n,
      });
      const plan = await deposit(agent, 40n * unit);
      await run(agent, plan);
      const position = await w.venue.position(agent.address, underlying);
      expect(position).toEqual({
        underlyingMint: underlying,
        receiptMint: receipt,
        receipt: plan.receiptAmount,
        underlying: (await withdraw(agent, plan.receiptAmount)).underlyingAmount,
      });
      expect(await w.venue.position(agent.address, receipt)).toEqual(position);
      expect(position.underlying).toBeLessThanOrEqual(40n * unit); // rounded down: never more than paid in
    });

    it('refuses a mint it does not take before anything is signed: a receipt token to deposit, an unknown mint', async () => {
      const agent = await funded(5n * unit);
      const unknown = generateSigner().address;
      expect((await refusal(deposit(agent, 1n * unit, receipt))).reason).toBe('mint');
      expect((await refusal(deposit(agent, 1n * unit, unknown))).reason).toBe('mint');
      expect((await refusal(withdraw(agent, 1n, unknown))).reason).toBe('mint');
      expect((await refusal(w.venue.position(agent.address, unknown))).reason).toBe('mint');
      await expect(w.venue.exchangeRate(unknown)).rejects.toThrow();
      expect(await holdings(agent)).toEqual([5n * unit, 0n]);
    });

    it('refuses an amount of zero or above what a token account holds, deposit or withdrawal', async () => {
      const agent = await funded(5n * unit);
      const reasons: VenueRefusal[] = [];
      for (const amount of [0n, U64_MAX + 1n]) {
        reasons.push((await refusal(deposit(agent, amount))).reason);
        reasons.push((await refusal(withdraw(agent, amount))).reason);
      }
      expect(reasons).toEqual(['amount', 'amount', 'amount', 'amount']);
      expect(await holdings(agent)).toEqual([5n * unit, 0n]);
    });

    it('refuses cpi_data it does not know, in checkCpiData and again in deposit and withdraw; takes none or empty', async () => {
      const agent = await funded(5n * unit);
      const unknown = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(() => w.venue.checkCpiData('deposit', undefined, 1n)).not.toThrow();
      expect(() => w.venue.checkCpiData('withdraw', new Uint8Array(), 1n)).not.toThrow();
      expect(() => w.venue.checkCpiData('deposit', unknown, 1n)).toThrow(VenueDataRejected);
      expect(() => w.venue.checkCpiData('withdraw', unknown, 1n)).toThrow(VenueDataRejected);
      const asked = { agent: agent.address, mint: underlying, reference: 'x', cpiData: unknown };
      const refused = [
        await refusal(w.venue.deposit({ ...asked, amount: 1n * unit })),
        await refusal(w.venue.withdraw({ ...asked, receiptAmount: 1n })),
      ];
      for (const err of refused) {
        expect(err).toBeInstanceOf(VenueDataRejected);
        expect(err.reason).toBe('cpi_data');
      }
      await run(agent, await w.venue.deposit({ ...asked, amount: 1n * unit, cpiData: new Uint8Array() }));
      expect((await holdings(agent))[0]).toBe(4n * unit);
    });

    it('fails on chain as a whole when the agent holds less than the plan moves: nothing moves', async () => {
      const agent = await funded(10n * unit);
      const plan = await deposit(agent, 5n * unit);
      await run(agent, plan);
      const before = await holdings(agent);
      for (const ask of [() => deposit(agent, 6n * unit), () => withdraw(agent, plan.receiptAmount + 1n)]) {
        const err = await ask()
          .then((p) => run(agent, p))
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(err).toBeInstanceOf(ChainFailure);
        expect(classifyChainFailure(err as ChainFailure)).toBe('insufficient_balance');
        expect(await holdings(agent)).toEqual(before);
      }
    });

    it('earns with time: later, the same receipt tokens pay more and a deposit mints fewer; one base unit then buys none and is refused', async () => {
      const early = await funded(1_000n * unit);
      const first = await deposit(early, 1_000n * unit);
      await run(early, first);
      const rate = await w.venue.exchangeRate(underlying);
      const worth = (await w.venue.position(early.address, underlying)).underlying;

      await w.chain.warp(SECONDS_PER_YEAR);
      const later = await w.venue.exchangeRate(receipt); // either mint names the rate
      expect(rateBelow(rate, later)).toBe(true);
      expect((await w.venue.position(early.address, underlying)).underlying).toBeGreaterThan(worth);
      const out = await withdraw(early, first.receiptAmount);
      expect(out.underlyingAmount).toBeGreaterThan(1_000n * unit);
      await run(early, out);
      expect(await holdings(early)).toEqual([out.underlyingAmount, 0n]);

      const late = await funded(1_000n * unit);
      const second = await deposit(late, 1_000n * unit);
      expect(second.receiptAmount).toBeLessThan(first.receiptAmount);
      await run(late, second);
      // withdrawn at once, a deposit never pays back more than was paid in
      expect((await withdraw(late, second.receiptAmount)).underlyingAmount).toBeLessThanOrEqual(
        1_000n * unit,
      );
      expect((await refusal(deposit(late, 1n))).reason).toBe('amount');
    });

    it('mints receipt tokens only to depositors: what the agents hold is every receipt token there is', async () => {
      let total = 0n;
      for (const agent of agents) total += await held(agent, receipt);
      expect(total).toBe((await mintAccount(w.chain, receipt)).supply);
    });

    it('refuses a withdrawal it cannot pay now (liquidity), before signing; one it can pay goes through', async () => {
      const dry = await open({ noInterestReserve: true });
      try {
        const mint = dry.venue.mints[0]!;
        const unit = 10n ** BigInt((await mintAccount(dry.chain, mint)).decimals);
        const agent = await funded(100n * unit, dry, mint);
        const plan = await deposit(agent, 100n * unit, mint, dry);
        await run(agent, plan, dry);
        await dry.chain.warp(SECONDS_PER_YEAR);
        expect((await refusal(withdraw(agent, plan.receiptAmount, mint, dry))).reason).toBe('liquidity');
        expect(await held(agent, plan.receiptMint, dry)).toBe(plan.receiptAmount);
        // what the venue holds (the 100 paid in) it pays
        const rate = await dry.venue.exchangeRate(mint);
        const payable = (100n * unit * rate.denominator) / rate.numerator;
        const part = await withdraw(agent, payable, mint, dry);
        expect(part.underlyingAmount).toBeLessThanOrEqual(100n * unit);
        await run(agent, part, dry);
        expect(await held(agent, mint, dry)).toBe(part.underlyingAmount);
        expect(await held(agent, plan.receiptMint, dry)).toBe(plan.receiptAmount - payable);
      } finally {
        await dry.close();
      }
    });
  });
}
