/**
 * An allow-list entry's own daily limit (guard.md): set with the entry or changed on its own (a lift
 * or a rise widens), counted in the entry's budget stream over every agent of the group, to the
 * millisecond; a decision made again keeps its own reservation, a release gives its room back; a
 * type-2 entry reserves only while it has a limit, a withdrawal never; a type-1 budget is as it was.
 */
import Big from 'big.js';
import {
  AGENT_A,
  AGENT_B,
  AGGREGATOR,
  GROUP,
  LIMITS,
  MINUTE,
  T0,
  VENDOR,
  VENDOR_ENTRY,
  VENUE,
  agent,
  group,
  groupEvents,
  registered,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { thrownBy } from '@tokenops/testing/errors';
import {
  budgetRemaining,
  decideSettleBudget,
  entryDailyRemaining,
  evolveBudget,
  foldBudget,
  initialBudgetState,
  reservesOn,
  type BudgetState,
} from './budget';
import type { BudgetEvent, GroupEvent } from './events';
import { decideAddEntry, decideSetEntryDailyLimit, entryDailyLimitWidens, type GroupState } from './group';
import { decideGroupLimits } from './group-limits';
import { decideSetApprovalPolicy } from './approval-policy';
import { decideIntent, simulateIntent, type IntentCommand } from './intent';
import { DAY_MS, HOUR_MS } from './time';

const big = (v: string) => new Big(v);

/** The fixture group with the entry `entryId`'s daily limit set at T0 (and more events after). */
function entryLimited(entryId: string, dailyLimit: string, more: (g: GroupState) => GroupEvent[] = () => []) {
  const base = groupEvents();
  const set = decideSetEntryDailyLimit({ entry_id: entryId, daily_limit: dailyLimit, now: T0 }, group(base));
  const limited = [...base, ...set];
  return group([...limited, ...more(group(limited))]);
}

const reserved = (intent_id: string, amount: string, at: number, entry_id = VENDOR_ENTRY): BudgetEvent => ({
  type: 'budget.reserved',
  data: { entry_id, intent_id, agent_id: AGENT_B, amount, at },
});
const released = (intent_id: string, at: number): BudgetEvent => ({
  type: 'budget.released',
  data: { entry_id: VENDOR_ENTRY, intent_id, at },
});

// Agent A with generous limits of its own: only the entry's can refuse.
const roomy = () =>
  agent([registered(AGENT_A, { per_tx_limit: '1000', daily_limit: '100000', hourly_tx_cap: 1000 })]);
const toVendor = (amount: string, overrides: Partial<IntentCommand> = {}) =>
  transfer(amount, { counterparty: VENDOR, ...overrides });
const swap = (amount: string, overrides: Partial<IntentCommand> = {}) =>
  transfer(amount, {
    action: 'swap',
    counterparty: AGGREGATOR,
    params: { to_mint: 'sol', minimum_amount_out: '0', slippage_bps: 50, quoted_amount_out: '0' },
    ...overrides,
  });

describe('setting an entry’s daily limit', () => {
  it('is taken with the entry, by a recipient (type 1) and a protocol (type 2), as exact text', () => {
    const add = (type: 1 | 2, extra: Record<string, unknown>) =>
      decideAddEntry(
        { entry_id: 'e', address: 'addr', type, daily_limit: '250.50', now: T0, ...extra },
        group(),
      );
    expect(add(2, {})[0]!.data).toMatchObject({ type: 2, daily_limit: '250.5' });
    expect(add(1, { approved_amount: '1000', ttl_seconds: 60 })[0]!.data).toMatchObject({
      type: 1,
      approved_amount: '1000',
      daily_limit: '250.5',
    });
    // Absent or null: none, and no key for it.
    const none = decideAddEntry(
      { entry_id: 'e', address: 'addr', type: 2, daily_limit: null, now: T0 },
      group(),
    );
    expect(none[0]!.data).not.toHaveProperty('daily_limit');
    expect(group([...groupEvents(), ...add(2, {})]).entries.get('addr')?.dailyLimit).toEqual(big('250.5'));
  });

  it('refuses a bad amount with the field named', () => {
    const bad = (daily_limit: unknown) =>
      thrownBy(() => decideAddEntry({ entry_id: 'e', address: 'a', type: 2, daily_limit, now: T0 }, group()));
    expect(bad('ten')).toMatchObject({ code: 'invalid_amount' });
    expect(bad('ten').message).toContain('daily_limit');
    expect(bad('-1').code).toBe('invalid_amount');
    expect(bad('1.0000001').code).toBe('invalid_amount');
    const change = (daily_limit: unknown) =>
      thrownBy(() => decideSetEntryDailyLimit({ entry_id: VENDOR_ENTRY, daily_limit, now: T0 }, group()));
    expect(change('x').code).toBe('invalid_amount');
    expect(change(undefined).details).toEqual([
      { path: '/daily_limit', issue: 'is required: an amount, or null to lift it' },
    ]);
  });

  it('is changed on the entry it names, records nothing when in force, and takes no agent’s entry', () => {
    expect(decideSetEntryDailyLimit({ entry_id: VENDOR_ENTRY, daily_limit: '10', now: T0 }, group())).toEqual(
      [
        {
          type: 'whitelist.daily_limit_set',
          data: { group_id: GROUP, entry_id: VENDOR_ENTRY, address: VENDOR, daily_limit: '10', at: T0 },
        },
      ],
    );
    const ten = entryLimited(VENDOR_ENTRY, '10');
    expect(decideSetEntryDailyLimit({ entry_id: VENDOR_ENTRY, daily_limit: '10.00', now: T0 }, ten)).toEqual(
      [],
    );
    expect(decideSetEntryDailyLimit({ entry_id: 'entry-venue', daily_limit: null, now: T0 }, ten)).toEqual(
      [],
    );
    const lifted = decideSetEntryDailyLimit({ entry_id: VENDOR_ENTRY, daily_limit: null, now: T0 }, ten);
    expect(lifted[0]!.data.daily_limit).toBeNull();
    const after = group([
      ...groupEvents(),
      ...decideSetEntryDailyLimit({ entry_id: VENDOR_ENTRY, daily_limit: '10', now: T0 }, group()),
      ...lifted,
    ]);
    expect(Object.keys(after.entries.get(VENDOR)!)).not.toContain('dailyLimit');
    // The rest of the entry is the same entry: its budget and lifetime stay.
    expect(after.entries.get(VENDOR)).toEqual(group().entries.get(VENDOR));
    expect(
      thrownBy(() => decideSetEntryDailyLimit({ entry_id: 'nope', daily_limit: '1', now: T0 }, group())).code,
    ).toBe('not_found');
    expect(
      thrownBy(() =>
        decideSetEntryDailyLimit({ entry_id: 'entry-agent-2', daily_limit: '1', now: T0 }, group()),
      ).code,
    ).toBe('conflict');
  });

  it('applies to the entry it was set on: a renewed address (a new entry) is not changed by it', () => {
    const set = decideSetEntryDailyLimit({ entry_id: VENDOR_ENTRY, daily_limit: '10', now: T0 }, group());
    const renewed = decideAddEntry(
      { entry_id: 'renewed', address: VENDOR, type: 1, approved_amount: '5', ttl_seconds: 60, now: T0 },
      group(),
    );
    expect(group([...groupEvents(), ...renewed, ...set]).entries.get(VENDOR)?.dailyLimit).toBeUndefined();
  });

  it('widens when lifted or raised, never when set or lowered', () => {
    expect(entryDailyLimitWidens(undefined, big('10'))).toBe(false);
    expect(entryDailyLimitWidens(undefined, undefined)).toBe(false);
    expect(entryDailyLimitWidens(big('10'), big('9.999999'))).toBe(false);
    expect(entryDailyLimitWidens(big('10'), big('10'))).toBe(false);
    expect(entryDailyLimitWidens(big('10'), big('10.000001'))).toBe(true);
    expect(entryDailyLimitWidens(big('10'), undefined)).toBe(true);
  });
});

describe('the decision under an entry’s daily limit', () => {
  it('refuses what the group’s agents together sent the entry past its limit, and reserves what it accepts', () => {
    const g = entryLimited(VENDOR_ENTRY, '10');
    const b = foldBudget([reserved('b-1', '7', T0)]);
    const over = decideIntent(toVendor('3.000001', { now: T0 + MINUTE }), {
      group: g,
      agent: roomy(),
      budget: b,
    });
    expect(over.code).toBe('entry_daily_limit_exceeded');
    expect(over.message).toContain("entry's daily limit");
    expect(over.budgetEvents).toEqual([]);
    const cmd = toVendor('3', { now: T0 + MINUTE });
    const fits = decideIntent(cmd, { group: g, agent: roomy(), budget: b });
    expect(fits.accepted).toBe(true);
    expect(fits.evaluation.entry_daily_remaining).toEqual(big('3'));
    expect(fits.budgetEvents).toEqual([
      {
        type: 'budget.reserved',
        data: {
          entry_id: VENDOR_ENTRY,
          intent_id: cmd.intent_id,
          agent_id: AGENT_A,
          amount: '3',
          at: cmd.now,
        },
      },
    ]);
  });

  it('counts a reservation for 24 hours to the millisecond: it leaves the window at exactly 24 h', () => {
    const g = entryLimited(VENDOR_ENTRY, '10');
    const b = foldBudget([reserved('b-1', '10', T0)]);
    const at = (now: number) =>
      decideIntent(toVendor('1', { now }), { group: g, agent: roomy(), budget: b }).code;
    expect(at(T0 + DAY_MS - 1)).toBe('entry_daily_limit_exceeded');
    expect(at(T0 + DAY_MS)).toBeUndefined();
    expect(entryDailyRemaining(g.entries.get(VENDOR)!, b, T0 + DAY_MS - 1)).toEqual(big('0'));
    expect(entryDailyRemaining(g.entries.get(VENDOR)!, b, T0 + DAY_MS)).toEqual(big('10'));
    // A reservation stamped ahead of this clock (another instance's) counts: the safe side.
    const ahead = foldBudget([reserved('b-2', '4', T0 + 5 * MINUTE)]);
    expect(entryDailyRemaining(g.entries.get(VENDOR)!, ahead, T0)).toEqual(big('6'));
  });

  it('keeps a consumed spend counted, and gives a released one’s room back', () => {
    const g = entryLimited(VENDOR_ENTRY, '10');
    const entry = g.entries.get(VENDOR)!;
    const b = foldBudget([reserved('b-1', '6', T0), reserved('b-2', '4', T0)]);
    const consumed = decideSettleBudget({ intent_id: 'b-1', confirmed: true, now: T0 + 1 }, entry, b);
    const failed = decideSettleBudget({ intent_id: 'b-2', confirmed: false, now: T0 + 1 }, entry, b);
    expect(failed).toEqual([released('b-2', T0 + 1)]);
    const after = [...consumed, ...failed].reduce(evolveBudget, b);
    expect(entryDailyRemaining(entry, after, T0 + 2)).toEqual(big('4'));
    expect(
      decideIntent(toVendor('4', { now: T0 + 2 }), { group: g, agent: roomy(), budget: after }).accepted,
    ).toBe(true);
    expect(
      decideIntent(toVendor('4.1', { now: T0 + 2 }), { group: g, agent: roomy(), budget: after }).code,
    ).toBe('entry_daily_limit_exceeded');
  });

  it('does not hold an intent’s own reservation against it when decided again, nor reserve it twice', () => {
    const g = entryLimited(VENDOR_ENTRY, '10');
    const cmd = toVendor('10', { now: T0 + MINUTE });
    const first = decideIntent(cmd, { group: g, agent: roomy(), budget: initialBudgetState() });
    const b = foldBudget(first.budgetEvents);
    // The acceptance did not land (a store without atomic appends): the same intent decided again.
    const again = decideIntent(cmd, { group: g, agent: roomy(), budget: b });
    expect(again.accepted).toBe(true);
    expect(again.budgetEvents).toEqual([]);
    expect(again.evaluation.entry_daily_remaining).toEqual(big('10'));
    // Another intent meets the reservation.
    expect(decideIntent(toVendor('0.001'), { group: g, agent: roomy(), budget: b }).code).toBe(
      'entry_daily_limit_exceeded',
    );
    // Refused by another check this time: its reservation is released.
    const refused = decideIntent(cmd, {
      group: g,
      agent: agent([registered(AGENT_A, { ...LIMITS, per_tx_limit: '5' })]),
      budget: b,
    });
    expect(refused.code).toBe('per_tx_limit_exceeded');
    expect(refused.budgetEvents).toEqual([released(cmd.intent_id, cmd.now)]);
    // Reserved again after that release (decided once more), it counts again.
    const back = [...refused.budgetEvents, ...first.budgetEvents].reduce(evolveBudget, b);
    expect(entryDailyRemaining(g.entries.get(VENDOR)!, back, cmd.now)).toEqual(big('0'));
  });

  it('keeps a type-1 budget exactly as it was: the reservation and what remains are the budget’s', () => {
    const g = entryLimited(VENDOR_ENTRY, '1000');
    const b = foldBudget([reserved('b-1', '300', T0)]);
    const cmd = toVendor('200.000001', { now: T0 + MINUTE });
    // The budget of 500 refuses first (its check is before the daily limit's), with its own code.
    expect(decideIntent(cmd, { group: g, agent: roomy(), budget: b }).code).toBe(
      'whitelist_amount_exhausted',
    );
    expect(budgetRemaining(g.entries.get(VENDOR)!, b)).toEqual(big('200'));
    expect(budgetRemaining(group().entries.get(VENDOR)!, b)).toEqual(big('200'));
    const fits = decideIntent(toVendor('200', { now: T0 + MINUTE }), { group: g, agent: roomy(), budget: b });
    expect(fits.agentEvents[0]!.data).toMatchObject({
      budget_entry_id: VENDOR_ENTRY,
      budget_remaining_after: '0',
    });
  });

  it('comes after the agent’s own limits and before the group’s: each answers its own code', () => {
    const g = entryLimited(VENDOR_ENTRY, '5', (limited) =>
      decideGroupLimits({ daily_limit: '5', group_id: GROUP, now: T0 }, limited.limits),
    );
    const small = agent([
      registered(AGENT_A, { per_tx_limit: '1000', daily_limit: '5', hourly_tx_cap: 1000 }),
    ]);
    expect(decideIntent(toVendor('6'), { group: g, agent: small, budget: initialBudgetState() }).code).toBe(
      'daily_limit_exceeded',
    );
    expect(decideIntent(toVendor('6'), { group: g, agent: roomy(), budget: initialBudgetState() }).code).toBe(
      'entry_daily_limit_exceeded',
    );
    const sim = simulateIntent(toVendor('6'), { group: g, agent: roomy(), budget: initialBudgetState() });
    expect(sim).toMatchObject({ would_succeed: false, reason: 'entry_daily_limit_exceeded' });
    const names = sim.checks.map((c) => c.name);
    expect(names.slice(names.indexOf('hourly'))).toEqual(['hourly', 'entry_daily', 'group_daily']);
  });

  it('reserves a held spend like any other: its approval names the entry whose stream holds it', () => {
    const g = entryLimited('entry-aggregator', '100', (limited) =>
      decideSetApprovalPolicy({ threshold: '50', ttl_seconds: 60, now: T0 }, limited),
    );
    const d = decideIntent(swap('60'), { group: g, agent: roomy(), budget: initialBudgetState() });
    expect(d.accepted).toBe(true);
    expect(d.approval).toMatchObject({ budget_entry_id: 'entry-aggregator' });
    expect(d.budgetEvents.map((e) => e.type)).toEqual(['budget.reserved']);
    const b = foldBudget(d.budgetEvents);
    expect(decideIntent(swap('40.000001'), { group: g, agent: roomy(), budget: b }).code).toBe(
      'entry_daily_limit_exceeded',
    );
  });
});

describe('which spends touch an entry’s budget stream', () => {
  it('a type-2 entry reserves only while it has a daily limit, and a withdrawal never', () => {
    const plain = group();
    const aggregator = plain.entries.get(AGGREGATOR)!;
    expect(reservesOn(aggregator, 'swap')).toBe(false);
    const none = decideIntent(swap('5'), { group: plain, agent: roomy() });
    expect(none.budgetEvents).toEqual([]);
    expect(none.agentEvents[0]!.data).not.toHaveProperty('budget_entry_id');
    expect(
      simulateIntent(swap('5'), { group: plain, agent: roomy() }).checks.map((c) => c.name),
    ).not.toContain('entry_daily');

    const g = entryLimited('entry-aggregator', '10', (limited) =>
      decideSetEntryDailyLimit({ entry_id: 'entry-venue', daily_limit: '1', now: T0 }, limited),
    );
    expect(reservesOn(g.entries.get(AGGREGATOR)!, 'swap')).toBe(true);
    const swapped = decideIntent(swap('5'), { group: g, agent: roomy(), budget: initialBudgetState() });
    expect(swapped.agentEvents[0]!.data).toMatchObject({ budget_entry_id: 'entry-aggregator' });
    expect(swapped.agentEvents[0]!.data).not.toHaveProperty('budget_remaining_after');
    expect(swapped.budgetEvents.map((e) => e.type)).toEqual(['budget.reserved']);

    // A withdrawal spends nothing: past the venue's limit of 1 it passes, and reserves nothing.
    const venue = g.entries.get(VENUE)!;
    expect(reservesOn(venue, 'withdraw')).toBe(false);
    expect(reservesOn(venue, 'deposit')).toBe(true);
    const withdrawal = decideIntent(transfer('5', { action: 'withdraw', counterparty: VENUE }), {
      group: g,
      agent: roomy(),
    });
    expect(withdrawal.accepted).toBe(true);
    expect(withdrawal.budgetEvents).toEqual([]);
    expect(withdrawal.agentEvents[0]!.data).not.toHaveProperty('budget_entry_id');
    expect(
      decideIntent(transfer('5', { action: 'deposit', counterparty: VENUE }), {
        group: g,
        agent: roomy(),
        budget: initialBudgetState(),
      }).code,
    ).toBe('entry_daily_limit_exceeded');
  });

  it('settles a type-2 entry’s reservation with no budget alert: consumed, or released', () => {
    const entry = entryLimited('entry-aggregator', '10').entries.get(AGGREGATOR)!;
    const b = foldBudget([reserved('s-1', '9', T0, 'entry-aggregator')]);
    expect(
      decideSettleBudget({ intent_id: 's-1', confirmed: true, now: T0 + 1 }, entry, b).map((e) => e.type),
    ).toEqual(['budget.consumed']);
    expect(
      decideSettleBudget({ intent_id: 's-1', confirmed: false, now: T0 + 1 }, entry, b).map((e) => e.type),
    ).toEqual(['budget.released']);
  });
});

describe('the window of an entry’s budget stream', () => {
  it('drops settled reservations a day and an hour old, keeps open ones however old', () => {
    const settle = (state: BudgetState, intent_id: string, at: number) =>
      evolveBudget(state, {
        type: 'budget.consumed',
        data: { entry_id: VENDOR_ENTRY, intent_id, amount: '1', amount_used: '1', at },
      });
    let b = foldBudget([reserved('old', '1', T0), reserved('open', '2', T0)]);
    b = settle(b, 'old', T0 + 1);
    b = evolveBudget(b, reserved('new', '3', T0 + DAY_MS + HOUR_MS - 1));
    expect([...b.window.keys()].sort()).toEqual(['new', 'old', 'open']);
    b = evolveBudget(b, reserved('newer', '4', T0 + DAY_MS + HOUR_MS));
    expect([...b.window.keys()].sort()).toEqual(['new', 'newer', 'open']);
    // The open one still settles days later; the budget's own figures never depended on the window.
    expect(b.reserved.get('open')).toEqual(big('2'));
  });
});
