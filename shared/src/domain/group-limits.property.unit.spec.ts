/**
 * Property test of the group's own limits under parallel spends (docs/guard.md "How they hold"). Three
 * agents of one group decide concurrently: each decision reads its agent's stream and the group's
 * spends stream (a snapshot, with their revisions), decides on it, and appends to both at the revisions
 * it read, as the store's atomic append does; an append whose streams moved meanwhile is refused and that
 * decision reads again. Reads, appends, outcomes and the clock interleave in any order. A ledger kept by
 * the test itself (not the deciders' state) checks after every step that what the group's agents have
 * accepted in any 24 hours never exceeds the group's daily limit, nor their operations in any 60 minutes
 * its cap.
 */
import Big from 'big.js';
import fc from 'fast-check';
import { evolveAgent, type AgentState } from './agent';
import {
  decideReleaseGroupCount,
  decideGroupLimits,
  evolveGroupSpends,
  initialGroupSpends,
} from './group-limits';
import type { GroupSpendsState } from './group-limits';
import { decideIntent, decideSettleIntent } from './intent';
import type { Action, GroupEvent } from './events';
import {
  AGENT_A,
  AGENT_B,
  AGGREGATOR,
  BASE_MINT,
  T0,
  VENUE,
  address,
  agent,
  group,
  groupEvents,
  registered,
} from '@tokenops/testing/domain/fixtures';
import { DAY_MS, HOUR_MS } from './time';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);
const AGENT_C = address('agent-c');
const AGENTS = [AGENT_A, AGENT_B, AGENT_C] as const;
const GROUP_DAILY = new Big(20);
const GROUP_CAP = 8;
// Each agent could spend more than the group allows on its own: only the group's limits bind.
const OWN = { per_tx_limit: '15', daily_limit: '1000', hourly_tx_cap: 100 };

const base = group();
const limited = group([
  ...groupEvents(),
  ...(decideGroupLimits(
    { daily_limit: GROUP_DAILY.toFixed(), hourly_tx_cap: GROUP_CAP, group_id: base.groupId, now: T0 },
    base.limits,
  ) as GroupEvent[]),
]);

type Step =
  | { kind: 'read'; who: 0 | 1 | 2; units: number; action: Action }
  | { kind: 'append'; who: 0 | 1 | 2 }
  | { kind: 'settle'; pick: number; confirmed: boolean }
  | { kind: 'wait'; ms: number };

const who = fc.constantFrom(0 as const, 1 as const, 2 as const);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      who,
      units: fc.integer({ min: 1, max: 12 }),
      action: fc.constantFrom<Action>('transfer', 'transfer', 'swap', 'deposit', 'withdraw'),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), who }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      pick: fc.nat(),
      confirmed: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.oneof(
        fc.integer({ min: 1, max: 1000 }),
        fc.constantFrom(HOUR_MS - 1, HOUR_MS, DAY_MS - 1, DAY_MS),
      ),
    }),
  },
);

const counterparty = (i: number, action: Action): string =>
  action === 'transfer' ? (i === 1 ? AGENT_A : AGENT_B) : action === 'swap' ? AGGREGATOR : VENUE;

interface Stream<S> {
  state: S;
  revision: number;
}
interface Pending {
  agentRevision: number;
  groupRevision: number;
  agent: AgentState;
  spends: GroupSpendsState;
  units: number;
  action: Action;
  intentId: string;
}
/** What the ledger counts: an accepted spend of the group, until it fails. */
interface Counted {
  intentId: string;
  agent: number;
  at: number;
  value: Big;
  spends: boolean;
  open: boolean;
}

function run(steps: readonly Step[]) {
  let now = T0 + 1;
  let serial = 0;
  const agents: Stream<AgentState>[] = AGENTS.map((id) => ({
    state: agent([registered(id, OWN)]),
    revision: 1,
  }));
  const spends: Stream<GroupSpendsState> = { state: initialGroupSpends(), revision: 0 };
  const pending: (Pending | undefined)[] = [undefined, undefined, undefined];
  const ledger: Counted[] = [];

  const check = () => {
    // Every window that ends at a counted spend's time (or now) holds at most the limits.
    const ends = [now, ...ledger.map((c) => c.at)];
    for (const end of ends) {
      const live = ledger.filter((c) => c.at <= end);
      const day = live.filter((c) => end - c.at < DAY_MS && c.spends);
      const value = day.reduce((sum, c) => sum.plus(c.value), new Big(0));
      if (value.gt(GROUP_DAILY))
        throw new Error(`the group spent ${value.toFixed()} in 24 h, over ${GROUP_DAILY.toFixed()}`);
      const ops = live.filter((c) => end - c.at < HOUR_MS).length;
      if (ops > GROUP_CAP) throw new Error(`the group made ${ops} operations in 60 min, over ${GROUP_CAP}`);
    }
  };

  for (const s of steps) {
    switch (s.kind) {
      case 'read': {
        serial += 1;
        const a = agents[s.who]!;
        pending[s.who] = {
          agentRevision: a.revision,
          groupRevision: spends.revision,
          agent: a.state,
          spends: spends.state,
          units: s.units,
          action: s.action,
          intentId: `i-${serial}`,
        };
        break;
      }
      case 'append': {
        const p = pending[s.who];
        if (!p) break;
        pending[s.who] = undefined;
        const amount = new Big(p.units);
        const d = decideIntent(
          {
            intent_id: p.intentId,
            action: p.action,
            amount,
            value: amount,
            mint: BASE_MINT,
            decimals: 6,
            counterparty: counterparty(s.who, p.action),
            now,
          },
          { group: limited, agent: p.agent, groupSpends: p.spends },
        );
        const a = agents[s.who]!;
        // The store's atomic append: both streams at the revisions read, or nothing.
        const moved =
          a.revision !== p.agentRevision || (d.groupEvents.length > 0 && spends.revision !== p.groupRevision);
        if (moved) break;
        a.state = d.agentEvents.reduce(evolveAgent, a.state);
        a.revision += d.agentEvents.length;
        spends.state = d.groupEvents.reduce(evolveGroupSpends, spends.state);
        spends.revision += d.groupEvents.length;
        if (d.accepted)
          ledger.push({
            intentId: p.intentId,
            agent: s.who,
            at: now,
            value: amount,
            spends: p.action !== 'withdraw',
            open: true,
          });
        break;
      }
      case 'settle': {
        const open = ledger.filter((c) => c.open);
        if (open.length === 0) break;
        const c = open[s.pick % open.length]!;
        const a = agents[c.agent]!;
        const outcome = s.confirmed
          ? ({ status: 'confirmed', tx_sig: `sig-${c.intentId}` } as const)
          : ({ status: 'failed', code: 'insufficient_balance', message: 'failed on chain' } as const);
        const events = decideSettleIntent({ intent_id: c.intentId, outcome, now }, a.state);
        a.state = events.reduce(evolveAgent, a.state);
        a.revision += events.length;
        c.open = false;
        if (!s.confirmed) {
          const released = decideReleaseGroupCount(limited.groupId, c.intentId, spends.state, now);
          spends.state = released.reduce(evolveGroupSpends, spends.state);
          spends.revision += released.length;
          ledger.splice(ledger.indexOf(c), 1);
        }
        break;
      }
      case 'wait':
        now += s.ms;
        break;
    }
    check();
  }
  return ledger;
}

describe('group limits under parallel spends by several agents', () => {
  it('no interleaving of reads, appends, outcomes and time ever exceeds the group’s daily limit or cap', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
        run(steps);
      }),
      { numRuns: RUNS },
    );
  });

  it('the limits are reached, not only respected: decisions made on the same revision land once', () => {
    // Three agents read at once and append: the first lands, the others' streams moved (the group's).
    const steps: Step[] = [
      { kind: 'read', who: 0, units: 10, action: 'transfer' },
      { kind: 'read', who: 1, units: 10, action: 'transfer' },
      { kind: 'read', who: 2, units: 10, action: 'transfer' },
      { kind: 'append', who: 0 },
      { kind: 'append', who: 1 },
      { kind: 'append', who: 2 },
      { kind: 'read', who: 1, units: 10, action: 'transfer' },
      { kind: 'append', who: 1 },
      { kind: 'read', who: 2, units: 1, action: 'transfer' },
      { kind: 'append', who: 2 },
    ];
    const ledger = run(steps);
    expect(ledger.map((c) => [c.agent, c.value.toFixed()])).toEqual([
      [0, '10'],
      [1, '10'],
    ]);
  });
});
