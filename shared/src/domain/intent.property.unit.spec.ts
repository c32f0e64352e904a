/**
 * Property tests of the spend decision. Two agents of one group spend on each other, on a shared
 * type-1 vendor budget, on a venue, or on a stranger; intents confirm or fail in any order; the
 * clock jumps by milliseconds to hours. A ledger kept by the test itself (not the deciders' state)
 * checks after every step that no window and no budget is ever exceeded.
 */
import Big from 'big.js';
import fc from 'fast-check';
import { evolveAgent, type AgentState } from './agent';
import { decideSettleBudget, evolveBudget, type BudgetState } from './budget';
import { decideIntent, decideSettleIntent } from './intent';
import {
  AGENT_A,
  AGENT_B,
  BASE_MINT,
  STRANGER,
  T0,
  VENDOR,
  VENUE,
  agent,
  budget,
  group,
  groupEvents,
  registered,
} from '@tokenops/testing/domain/fixtures';
import { DAY_MS, HOUR_MS } from './time';
import type { Action } from './events';

const LIMITS = { per_tx_limit: '100', daily_limit: '300', hourly_tx_cap: 5 };
const BUDGET = '250';
const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

/** An amount: fixed micro-units, or aimed by the ledger at what remains (exactly, or one unit over). */
type AmountChoice = number | 'daily-exact' | 'daily-over' | 'budget-exact' | 'budget-over';

type Step =
  | {
      kind: 'spend';
      who: 0 | 1;
      amount: AmountChoice;
      target: 'peer' | 'vendor' | 'venue' | 'stranger';
      action: Action;
    }
  | { kind: 'settle'; pick: number; confirmed: boolean }
  | { kind: 'wait'; ms: number };

const amount: fc.Arbitrary<AmountChoice> = fc.oneof(
  fc.constantFrom<AmountChoice>('daily-exact', 'daily-over', 'budget-exact', 'budget-over'),
  fc.constantFrom(1, 100_000_000, 100_000_001),
  fc.integer({ min: 1, max: 1_000 }),
  fc.integer({ min: 1, max: 150 }).map((units) => units * 1_000_000),
  fc.integer({ min: 1, max: 150_000_000 }),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('spend' as const),
      who: fc.constantFrom(0 as const, 1 as const),
      amount,
      target: fc.constantFrom(
        'peer' as const,
        'peer' as const,
        'vendor' as const,
        'vendor' as const,
        'venue' as const,
        'stranger' as const,
      ),
      action: fc.constantFrom('deposit' as const, 'withdraw' as const),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), confirmed: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.oneof(
        fc.constantFrom(1, HOUR_MS - 1, HOUR_MS, DAY_MS - 1, DAY_MS),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: 3 * HOUR_MS }),
      ),
    }),
  },
);

interface Booked {
  id: string;
  who: 0 | 1;
  value: Big;
  at: number;
  spends: boolean;
  toVendor: boolean;
  status: 'reserved' | 'confirmed' | 'failed';
}

const live = (b: Booked) => b.status !== 'failed';
const sum = (items: Booked[]) => items.reduce((acc, b) => acc.plus(b.value), new Big(0));
const UNIT = new Big('0.000001');

/** Resolves an amount choice from the ledger (never from the deciders' own state). */
function amountFor(choice: AmountChoice, who: 0 | 1, ledger: Booked[], now: number): Big {
  if (typeof choice === 'number') return new Big(choice).div(1_000_000);
  const dailyLeft = new Big(LIMITS.daily_limit).minus(
    sum(ledger.filter((b) => b.who === who && b.spends && live(b) && now - b.at < DAY_MS)),
  );
  const budgetLeft = new Big(BUDGET).minus(sum(ledger.filter((b) => b.toVendor && live(b))));
  const target = choice.startsWith('daily') ? dailyLeft : budgetLeft;
  const aimed = choice.endsWith('over') ? target.plus(UNIT) : target;
  return aimed.gt(0) ? aimed : UNIT;
}

/** Runs the steps through the deciders, calling `check` with the independent ledger after each. */
function run(
  steps: Step[],
  check: (ledger: Booked[], now: number, agents: AgentState[], vendor: BudgetState) => void,
) {
  const g = group(groupEvents({ vendorBudget: BUDGET }));
  const vendorEntry = g.entries.get(VENDOR)!;
  const agents = [agent([registered(AGENT_A, LIMITS)]), agent([registered(AGENT_B, LIMITS)])];
  let vendor = budget();
  let now = T0;
  const ledger: Booked[] = [];
  let n = 0;
  for (const s of steps) {
    if (s.kind === 'wait') now += s.ms;
    if (s.kind === 'spend') {
      const me = agents[s.who]!;
      const action: Action = s.target === 'venue' ? s.action : 'transfer';
      const counterparty = {
        peer: s.who === 0 ? AGENT_B : AGENT_A,
        vendor: VENDOR,
        venue: VENUE,
        stranger: STRANGER,
      }[s.target];
      const amount = amountFor(s.amount, s.who, ledger, now);
      const id = `i${++n}`;
      const d = decideIntent(
        { intent_id: id, action, amount, value: amount, mint: BASE_MINT, decimals: 6, counterparty, now },
        { group: g, agent: me, budget: vendor },
      );
      agents[s.who] = d.agentEvents.reduce(evolveAgent, me);
      vendor = d.budgetEvents.reduce(evolveBudget, vendor);
      if (d.accepted) {
        ledger.push({
          id,
          who: s.who,
          value: amount,
          at: now,
          spends: action !== 'withdraw',
          toVendor: s.target === 'vendor',
          status: 'reserved',
        });
      }
    }
    if (s.kind === 'settle') {
      const open = ledger.filter((b) => b.status === 'reserved');
      const b = open[s.pick % Math.max(1, open.length)];
      if (b) {
        const outcome = s.confirmed
          ? ({ status: 'confirmed', tx_sig: `sig-${b.id}` } as const)
          : ({ status: 'failed', code: 'internal_error', message: 'chain said no' } as const);
        const events = decideSettleIntent({ intent_id: b.id, outcome, now }, agents[b.who]!);
        agents[b.who] = events.reduce(evolveAgent, agents[b.who]!);
        if (b.toVendor) {
          vendor = decideSettleBudget(
            { intent_id: b.id, confirmed: s.confirmed, now },
            vendorEntry,
            vendor,
          ).reduce(evolveBudget, vendor);
        }
        b.status = s.confirmed ? 'confirmed' : 'failed';
      }
    }
    check(ledger, now, agents, vendor);
  }
}

/**
 * The checks made after every step of every run: a plain throw, which fast-check reports with the
 * shrunk steps. (Jest's `expect` builds an error at each call, pass or fail: its hundreds of thousands of
 * calls cost more than the deciders they check.)
 */
function holds(ok: boolean, what: () => string): void {
  if (!ok) throw new Error(what());
}
const same = (actual: unknown, expected: unknown, what: string) =>
  holds(actual === expected, () => `${what}: ${String(actual)}, expected ${String(expected)}`);
/** The group the headroom probe decides in (the same at every step). */
const probeGroup = group();

describe('spend decision properties', () => {
  // 'max' lets sequences grow to the full length: the windows need many steps to fill.
  const steps = fc.array(step, { minLength: 1, maxLength: 60, size: 'max' });

  it('the accepted sum in any 24-hour window never exceeds the daily limit', () => {
    fc.assert(
      fc.property(steps, (s) =>
        run(s, (ledger, now) => {
          for (const who of [0, 1] as const) {
            const inDay = ledger.filter((b) => b.who === who && b.spends && live(b) && now - b.at < DAY_MS);
            holds(sum(inDay).lte(LIMITS.daily_limit), () => `agent ${who}: ${sum(inDay)} accepted in a day`);
            // …and every single accepted spend stayed within the per-transaction limit.
            holds(
              inDay.every((b) => b.value.lte(LIMITS.per_tx_limit)),
              () => `agent ${who}: a spend over the per-transaction limit`,
            );
          }
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('the count of operations in any 60-minute window never exceeds the hourly cap', () => {
    fc.assert(
      fc.property(steps, (s) =>
        run(s, (ledger, now) => {
          for (const who of [0, 1] as const) {
            const inHour = ledger.filter((b) => b.who === who && live(b) && now - b.at < HOUR_MS);
            holds(
              inHour.length <= LIMITS.hourly_tx_cap,
              () => `agent ${who}: ${inHour.length} operations in an hour`,
            );
          }
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('no allow-list entry’s used amount (plus open reservations) ever exceeds its budget', () => {
    fc.assert(
      fc.property(steps, (s) =>
        run(s, (ledger, _now, _agents, vendor) => {
          const toVendor = ledger.filter((b) => b.toVendor && live(b));
          holds(sum(toVendor).lte(BUDGET), () => `${sum(toVendor)} reserved or used of the budget`);
          holds(vendor.used.lte(BUDGET), () => `the budget's used amount ${vendor.used} is over it`);
          same(
            vendor.used.toFixed(),
            sum(toVendor.filter((b) => b.status === 'confirmed')).toFixed(),
            "the budget's used amount",
          );
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('the headroom the decider reports is exactly the limit minus what the ledger counts', () => {
    fc.assert(
      fc.property(steps, (s) =>
        run(s, (ledger, now, agents) => {
          for (const who of [0, 1] as const) {
            const probe = decideIntent(
              {
                intent_id: 'probe',
                action: 'transfer',
                amount: new Big(1),
                value: new Big(1),
                mint: BASE_MINT,
                decimals: 6,
                counterparty: STRANGER,
                now,
              },
              { group: probeGroup, agent: agents[who]! },
            );
            const spent = sum(
              ledger.filter((b) => b.who === who && b.spends && live(b) && now - b.at < DAY_MS),
            );
            const ops = ledger.filter((b) => b.who === who && live(b) && now - b.at < HOUR_MS).length;
            same(
              probe.evaluation.daily_remaining.toFixed(),
              new Big(LIMITS.daily_limit).minus(spent).toFixed(),
              `agent ${who}: daily_remaining`,
            );
            same(
              probe.evaluation.hourly_tx_remaining,
              LIMITS.hourly_tx_cap - ops,
              `agent ${who}: hourly_tx_remaining`,
            );
          }
        }),
      ),
      { numRuns: RUNS },
    );
  });
});
