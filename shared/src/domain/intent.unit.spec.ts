import Big from 'big.js';
import { decideIntent, decideSettleIntent, simulateIntent, simulateTransfer } from './intent';
import { budgetRemaining, decideSettleBudget, foldBudget } from './budget';
import { evolveAgent, foldAgent } from './agent';
import type { AgentEvent, BudgetEvent } from './events';
import {
  AGENT_A,
  AGENT_B,
  AGGREGATOR,
  LIMITS,
  BASE_MINT,
  MINUTE,
  SECOND,
  STRANGER,
  T0,
  VENDOR,
  VENDOR_ENTRY,
  VENDOR_TTL_MS,
  VENUE,
  accepted,
  agent,
  budget,
  group,
  groupEvents,
  registered,
  spent,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { ERROR_CATALOGUE } from '../errors';
import { decideFreezeGroup, decideUnfreezeGroup } from './governance';
import { foldGroup } from './group';
import { settleBudget, settleIntent, spend } from '@tokenops/testing/domain/deciders';
import { DeciderSpecification } from '@tokenops/testing/domain/specification';

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const activeA = (...history: AgentEvent[][]) => agent([registered(AGENT_A), ...history.flat()]);

describe('the spend decision', () => {
  describe('given an active agent with per-tx 100, daily 1000, hourly cap 10', () => {
    it('accepts a transfer to another agent of the group and reserves it', () => {
      const cmd = transfer('25.5', { memo: 'invoice 7', task_id: 't-1' });
      const d = decideIntent(cmd, { group: group(), agent: activeA() });
      expect(d.accepted).toBe(true);
      expect(d.agentEvents).toEqual([
        {
          type: 'intent.accepted',
          data: expect.objectContaining({
            intent_id: cmd.intent_id,
            action: 'transfer',
            amount: '25.5',
            value: '25.5',
            spends: true,
            counterparty: AGENT_B,
            protocol_fee: '0.0255',
            net_amount: '25.4745',
            memo: 'invoice 7',
            task_id: 't-1',
            at: T0,
          }),
        },
      ]);
      expect(d.budgetEvents).toEqual([]);
      expect(d.daily_remaining.toFixed()).toBe('974.5');
      expect(d.hourly_tx_remaining).toBe(9);
    });

    it('intent.accepted keeps the idempotency key and a swap’s parameters: all a retry and the executor need', () => {
      const params = {
        to_mint: VENUE,
        minimum_amount_out: '0.06',
        slippage_bps: 50,
        quoted_amount_out: '0.061',
      };
      const cmd = transfer('10', {
        action: 'swap',
        counterparty: AGGREGATOR,
        value: new Big('12.5'),
        idempotency_key: 'key-1',
        params,
      });
      DeciderSpecification.for(spend())
        .given([registered(AGENT_A)])
        .when(cmd)
        .then([
          {
            type: 'intent.accepted',
            data: {
              intent_id: cmd.intent_id,
              agent_id: AGENT_A,
              group_id: 'group-1',
              action: 'swap',
              amount: '10',
              mint: BASE_MINT,
              value: '12.5',
              spends: true,
              counterparty: AGGREGATOR,
              entry_id: 'entry-aggregator',
              idempotency_key: 'key-1',
              params,
              daily_remaining_after: '987.5',
              hourly_tx_remaining_after: 9,
              at: T0,
            },
          },
        ]);
    });

    it('intent.accepted of a plain transfer carries its fee split and no field it was not given', () => {
      const cmd = transfer('10');
      DeciderSpecification.for(spend())
        .given([registered(AGENT_A)])
        .when(cmd)
        .then([
          {
            type: 'intent.accepted',
            data: {
              intent_id: cmd.intent_id,
              agent_id: AGENT_A,
              group_id: 'group-1',
              action: 'transfer',
              amount: '10',
              mint: BASE_MINT,
              value: '10',
              spends: true,
              counterparty: AGENT_B,
              entry_id: 'entry-agent-2',
              protocol_fee: '0.01',
              net_amount: '9.99',
              daily_remaining_after: '990',
              hourly_tx_remaining_after: 9,
              at: T0,
            },
          },
        ]);
    });

    it.each([
      ['exactly at the per-transaction limit', '100', true],
      ['one base unit above it', '100.000001', false],
    ])('per_tx: an amount %s', (_, amount, ok) => {
      const d = decideIntent(transfer(amount), { group: group(), agent: activeA() });
      expect(d.accepted).toBe(ok);
      if (!ok) expect(d.code).toBe('per_tx_limit_exceeded');
    });

    it('daily: accepts the spend that leaves exactly zero remaining, then blocks the next base unit (a deposit: no transfer is that small)', () => {
      const history = [...Array(9)].map((_, i) => spent('100', T0 - HOUR - i * MINUTE)).flat();
      const state = activeA(history);
      const last = decideIntent(transfer('100'), { group: group(), agent: state });
      expect(last.accepted).toBe(true);
      expect(last.daily_remaining.toFixed()).toBe('0');

      const after = last.agentEvents.reduce(evolveAgent, state);
      const blocked = decideIntent(transfer('0.000001', { action: 'deposit', counterparty: VENUE }), {
        group: group(),
        agent: after,
      });
      expect(blocked.code).toBe('daily_limit_exceeded');
      expect(blocked.evaluation.daily_remaining.toFixed()).toBe('0');
    });

    it('daily: a spend counts for 24 hours to the millisecond, then leaves the window', () => {
      const state = activeA(spent('100', T0), spent('850', T0 + HOUR));
      expect(
        decideIntent(transfer('100', { now: T0 + DAY - 1 }), { group: group(), agent: state }).code,
      ).toBe('daily_limit_exceeded');
      expect(
        decideIntent(transfer('100', { now: T0 + DAY }), { group: group(), agent: state }).accepted,
      ).toBe(true);
    });

    it('hourly: the cap counts operations in the last 60 minutes: blocked at 59:59, allowed at 60:00', () => {
      const history = [...Array(10)].map(() => spent('1', T0)).flat();
      const state = activeA(history);
      const at5959 = decideIntent(transfer('1', { now: T0 + 59 * MINUTE + 59 * SECOND }), {
        group: group(),
        agent: state,
      });
      expect(at5959.code).toBe('hourly_cap_exceeded');
      expect(at5959.evaluation.hourly_tx_remaining).toBe(0);
      const at6000 = decideIntent(transfer('1', { now: T0 + 60 * MINUTE }), { group: group(), agent: state });
      expect(at6000.accepted).toBe(true);
      expect(at6000.hourly_tx_remaining).toBe(9);
    });

    it('counts reserved (not yet confirmed) intents against every limit', () => {
      let state = activeA();
      for (let i = 0; i < 10; i++) {
        const d = decideIntent(transfer('100'), { group: group(), agent: state });
        expect(d.accepted).toBe(true);
        state = d.agentEvents.reduce(evolveAgent, state);
      }
      expect(decideIntent(transfer('1'), { group: group(), agent: state }).code).toBe('daily_limit_exceeded');
    });

    it('whitelist_violation: a recipient that is not on the allow-list', () => {
      const d = decideIntent(transfer('1', { counterparty: STRANGER }), { group: group(), agent: activeA() });
      expect(d.accepted).toBe(false);
      expect(d.code).toBe('whitelist_violation');
      expect(d.agentEvents).toEqual([
        {
          type: 'intent.blocked',
          data: expect.objectContaining({
            code: 'whitelist_violation',
            attempted_amount: '1',
            counterparty: STRANGER,
          }),
        },
      ]);
    });

    it('whitelist_violation: a protocol entry is not a transfer recipient, and a recipient is not a venue', () => {
      expect(
        decideIntent(transfer('1', { counterparty: VENUE }), { group: group(), agent: activeA() }).code,
      ).toBe('whitelist_violation');
      const deposit = transfer('1', { action: 'deposit', counterparty: AGENT_B });
      expect(decideIntent(deposit, { group: group(), agent: activeA() }).code).toBe('whitelist_violation');
    });

    it('recipient_invalid: an agent cannot transfer to itself, and is told so (its address is valid)', () => {
      const d = decideIntent(transfer('1', { counterparty: AGENT_A }), { group: group(), agent: activeA() });
      expect(d.code).toBe('recipient_invalid');
      const message =
        'The recipient is the agent’s own wallet; a transfer must go to another allow-listed address.';
      expect(d.message).toBe(message);
      expect(d.agentEvents).toEqual([
        { type: 'intent.blocked', data: expect.objectContaining({ code: 'recipient_invalid', message }) },
      ]);
    });

    it('a block that is not a recipient’s says the code’s own message', () => {
      const d = decideIntent(transfer('101'), { group: group(), agent: activeA() });
      expect(d.message).toBe(ERROR_CATALOGUE.per_tx_limit_exceeded.message);
    });

    it.each([
      ['0.000001', 6, false],
      ['0.000499', 6, false],
      ['0.0005', 6, true], // its fee rounds up to one base unit
      ['0.0005', 9, true], // the fee's precision is at most 6 decimals
      ['4.99', 2, false],
      ['5', 2, true],
    ])('invalid_amount: a transfer of %s (%i decimals) carries its fee: %s', (amount, decimals, ok) => {
      const d = decideIntent(transfer(amount, { decimals }), { group: group(), agent: activeA() });
      expect(d.accepted).toBe(ok);
      if (ok) {
        expect(d.agentEvents[0]!.data).toEqual(
          expect.objectContaining({ protocol_fee: decimals === 2 ? '0.01' : '0.000001' }),
        );
      } else {
        expect(d.code).toBe('invalid_amount');
        expect(d.message).toBe(
          `A transfer must be large enough to carry its 0.10 % fee: at least ${decimals === 2 ? '5' : '0.0005'} of this token.`,
        );
        expect(d.evaluation.checks.find((c) => !c.ok)?.name).toBe('fee_carried');
      }
    });

    it('a swap, deposit or withdrawal carries no protocol fee: one base unit is enough', () => {
      for (const [action, counterparty] of [
        ['swap', AGGREGATOR],
        ['deposit', VENUE],
        ['withdraw', VENUE],
      ] as const) {
        const d = decideIntent(transfer('0.000001', { action, counterparty }), {
          group: group(),
          agent: activeA(),
        });
        expect({ action, accepted: d.accepted }).toEqual({ action, accepted: true });
      }
    });

    it('invalid_amount: a zero amount is not an operation', () => {
      expect(decideIntent(transfer('0'), { group: group(), agent: activeA() }).code).toBe('invalid_amount');
    });

    it('unauthorized: a revoked agent, an unregistered one, or one of another group', () => {
      const revoked = activeA([
        { type: 'agent.revoked', data: { agent_id: AGENT_A, reason: 'operator', at: T0 } },
      ]);
      expect(decideIntent(transfer('1'), { group: group(), agent: revoked }).code).toBe('unauthorized');
      expect(decideIntent(transfer('1'), { group: group(), agent: agent([]) }).code).toBe('unauthorized');
      const otherGroup = group(
        groupEvents().map((e) => ({ ...e, data: { ...e.data, group_id: 'group-2' } }) as typeof e),
      );
      expect(decideIntent(transfer('1'), { group: otherGroup, agent: activeA() }).code).toBe('unauthorized');
    });

    it('checks in a fixed order: the allow-list before the limits', () => {
      const d = decideIntent(transfer('5000', { counterparty: STRANGER }), {
        group: group(),
        agent: activeA(),
      });
      expect(d.code).toBe('whitelist_violation');
      expect(d.evaluation.checks.filter((c) => !c.ok).map((c) => c.code)).toEqual([
        'whitelist_violation',
        'per_tx_limit_exceeded',
        'daily_limit_exceeded',
      ]);
    });

    it('a decision needs a counterparty: only a simulation may go without one', () => {
      expect(() =>
        decideIntent({ ...transfer('1'), counterparty: undefined }, { group: group(), agent: activeA() }),
      ).toThrow();
    });

    it('limits lowered below what was already used leave no headroom, never a negative one', () => {
      const busy = activeA(...[...Array(5)].map(() => spent('100', T0)), [
        {
          type: 'agent.limits_changed',
          data: {
            agent_id: AGENT_A,
            limits: { per_tx_limit: '100', daily_limit: '300', hourly_tx_cap: 3 },
            at: T0,
          },
        },
      ]);
      const d = decideIntent(transfer('1'), { group: group(), agent: busy });
      expect(d.code).toBe('daily_limit_exceeded');
      expect(d.evaluation.daily_remaining.toFixed()).toBe('0');
      expect(d.evaluation.hourly_tx_remaining).toBe(0);
    });

    it('deciding again for an intent already accepted adds nothing (a safe retry)', () => {
      const cmd = transfer('10');
      const first = decideIntent(cmd, { group: group(), agent: activeA() });
      const state = first.agentEvents.reduce(evolveAgent, activeA());
      const again = decideIntent(cmd, { group: group(), agent: state });
      expect(again.accepted).toBe(true);
      expect(again.agentEvents).toEqual([]);
      expect(again.budgetEvents).toEqual([]);
    });
  });

  describe('given a type-1 vendor with a budget of 500 and a 7-day TTL', () => {
    const toVendor = (amount: string, overrides = {}) =>
      transfer(amount, { counterparty: VENDOR, ...overrides });

    it('reserves the value on the budget stream when accepted', () => {
      const cmd = toVendor('80');
      const d = decideIntent(cmd, { group: group(), agent: activeA(), budget: budget() });
      expect(d.accepted).toBe(true);
      expect(d.agentEvents[0]!.data).toEqual(expect.objectContaining({ budget_entry_id: VENDOR_ENTRY }));
      expect(d.budgetEvents).toEqual([
        {
          type: 'budget.reserved',
          data: { entry_id: VENDOR_ENTRY, intent_id: cmd.intent_id, agent_id: AGENT_A, amount: '80', at: T0 },
        },
      ]);
    });

    it('whitelist_expired: allowed a millisecond before the TTL, expired at its exact second', () => {
      const ttl = T0 + VENDOR_TTL_MS;
      expect(
        decideIntent(toVendor('1', { now: ttl - 1 }), { group: group(), agent: activeA() }).accepted,
      ).toBe(true);
      const d = decideIntent(toVendor('1', { now: ttl }), { group: group(), agent: activeA() });
      expect(d.code).toBe('whitelist_expired');
      expect(d.evaluation.ttl_remaining_ms).toBe(0);
      const later = decideIntent(toVendor('1', { now: ttl + HOUR }), { group: group(), agent: activeA() });
      expect(later.evaluation.ttl_remaining_ms).toBe(0);
      expect(
        decideIntent(toVendor('1', { now: T0 }), { group: group(), agent: activeA() }).evaluation
          .ttl_remaining_ms,
      ).toBe(VENDOR_TTL_MS);
    });

    it('whitelist_amount_exhausted: more than the budget still allows, counting others’ reservations', () => {
      const b = budget([
        {
          type: 'budget.reserved',
          data: { entry_id: VENDOR_ENTRY, intent_id: 'x', agent_id: AGENT_B, amount: '450', at: T0 },
        },
      ]);
      const agentWithRoom = agent([
        registered(AGENT_A, { per_tx_limit: '1000', daily_limit: '1000', hourly_tx_cap: 10 }),
      ]);
      expect(decideIntent(toVendor('50'), { group: group(), agent: agentWithRoom, budget: b }).accepted).toBe(
        true,
      );
      expect(
        decideIntent(toVendor('50.000001'), { group: group(), agent: agentWithRoom, budget: b }).code,
      ).toBe('whitelist_amount_exhausted');
    });

    it('a budget used exactly is voided, and later transfers are whitelist_amount_exhausted', () => {
      const big = agent([
        registered(AGENT_A, { per_tx_limit: '500', daily_limit: '1000', hourly_tx_cap: 10 }),
      ]);
      const cmd = toVendor('500');
      const d = decideIntent(cmd, { group: group(), agent: big, budget: budget() });
      const entry = group().entries.get(VENDOR)!;
      const reserved = foldBudget(d.budgetEvents);
      const settle = decideSettleBudget(
        { intent_id: cmd.intent_id, confirmed: true, now: T0 + SECOND },
        entry,
        reserved,
      );
      expect(settle.map((e) => e.type)).toEqual([
        'budget.consumed',
        'policy.whitelist_amount_threshold',
        'policy.whitelist_voided',
      ]);
      expect(settle[2]!.data).toEqual({
        entry_id: VENDOR_ENTRY,
        recipient: VENDOR,
        final_amount_used: '500',
        at: T0 + SECOND,
      });
      const after = foldBudget([...d.budgetEvents, ...settle]);
      expect(after.voided).toBe(true);
      expect(decideIntent(toVendor('0.0005'), { group: group(), agent: big, budget: after }).code).toBe(
        'whitelist_amount_exhausted',
      );
    });

    it('an evaluation reports what the budget still allows and how long the entry lives, and nothing else it lacks', () => {
      const ok = decideIntent(toVendor('80', { now: T0 + SECOND }), {
        group: group(),
        agent: activeA(),
        budget: budget(),
      }).evaluation;
      expect(ok.budget_remaining?.toFixed()).toBe('500');
      expect(ok.ttl_remaining_ms).toBe(VENDOR_TTL_MS - SECOND);
      expect(ok.entry?.entryId).toBe(VENDOR_ENTRY);
      expect(ok).not.toHaveProperty('failure');
      const toStranger = decideIntent(transfer('1', { counterparty: STRANGER }), {
        group: group(),
        agent: activeA(),
      }).evaluation;
      expect(toStranger.failure).toBe('whitelist_violation');
      for (const absent of ['entry', 'budget_remaining', 'ttl_remaining_ms'])
        expect(toStranger).not.toHaveProperty(absent);
    });

    it('with no budget stream yet, an accepted intent reserves and a blocked one releases nothing', () => {
      const reserving = decideIntent(toVendor('80'), { group: group(), agent: activeA() });
      expect(reserving.budgetEvents.map((e) => e.type)).toEqual(['budget.reserved']);
      const blocked = decideIntent(toVendor('101'), { group: group(), agent: activeA() });
      expect(blocked.code).toBe('per_tx_limit_exceeded');
      expect(blocked.budgetEvents).toEqual([]);
    });

    it('a blocked retry of an intent that had reserved releases its reservation', () => {
      const cmd = toVendor('80');
      const reservedFirst = decideIntent(cmd, { group: group(), agent: activeA(), budget: budget() });
      const b = foldBudget(reservedFirst.budgetEvents);
      // Meanwhile the agent was revoked: the retry is blocked and gives the budget back.
      const revoked = activeA([
        { type: 'agent.revoked', data: { agent_id: AGENT_A, reason: 'operator', at: T0 } },
      ]);
      const retry = decideIntent(cmd, { group: group(), agent: revoked, budget: b });
      expect(retry.code).toBe('unauthorized');
      expect(retry.budgetEvents).toEqual([
        { type: 'budget.released', data: { entry_id: VENDOR_ENTRY, intent_id: cmd.intent_id, at: T0 } },
      ]);
    });

    it('its own reservation counts as available to the same intent when decided again', () => {
      const big = agent([
        registered(AGENT_A, { per_tx_limit: '500', daily_limit: '1000', hourly_tx_cap: 10 }),
      ]);
      const cmd = toVendor('500');
      const first = decideIntent(cmd, { group: group(), agent: big, budget: budget() });
      const again = decideIntent(cmd, { group: group(), agent: big, budget: foldBudget(first.budgetEvents) });
      expect(again.accepted).toBe(true);
      expect(again.budgetEvents).toEqual([]);
      expect(again.agentEvents.map((e) => e.type)).toEqual(['intent.accepted']);
    });
  });

  describe('swaps, deposits and withdrawals', () => {
    it('a swap goes through the aggregator, a protocol entry, and spends the base-token value', () => {
      const swap = transfer('10', { action: 'swap', counterparty: AGGREGATOR, value: new Big('99.5') });
      const d = decideIntent(swap, { group: group(), agent: activeA() });
      expect(d.accepted).toBe(true);
      expect(d.daily_remaining.toFixed()).toBe('900.5');
      expect(d.agentEvents[0]!.data).not.toHaveProperty('protocol_fee');
      const tooMuch = transfer('10', { action: 'swap', counterparty: AGGREGATOR, value: new Big('100.01') });
      expect(decideIntent(tooMuch, { group: group(), agent: activeA() }).code).toBe('per_tx_limit_exceeded');
    });

    it('a withdrawal counts toward the hourly cap only', () => {
      const history = [...Array(9)].map((_, i) => spent('100', T0 - i * MINUTE)).flat();
      const withdraw = transfer('5000', { action: 'withdraw', counterparty: VENUE });
      const d = decideIntent(withdraw, { group: group(), agent: activeA(history) });
      expect(d.accepted).toBe(true);
      expect(d.agentEvents[0]!.data).toEqual(expect.objectContaining({ spends: false }));
      expect(d.hourly_tx_remaining).toBe(0);
      expect(d.daily_remaining.toFixed()).toBe('100');
      expect(d.agentEvents[0]!.data).toEqual(expect.objectContaining({ daily_remaining_after: '100' }));
      const state = d.agentEvents.reduce(evolveAgent, activeA(history));
      const next = decideIntent(transfer('1', { action: 'withdraw', counterparty: VENUE }), {
        group: group(),
        agent: state,
      });
      expect(next.code).toBe('hourly_cap_exceeded');
    });

    it('only a transfer is checked as a payment to a recipient: a deposit is checked against the allow-list', () => {
      const d = decideIntent(transfer('1', { action: 'deposit', counterparty: VENUE }), {
        group: group(),
        agent: activeA(),
      });
      expect(d.evaluation.checks.map((c) => c.name)).toEqual([
        'agent_active',
        'group_not_frozen',
        'agent_not_frozen',
        'amount_positive',
        'whitelisted',
        'per_tx',
        'daily',
        'hourly',
      ]);
      const toSelf = transfer('1', { action: 'deposit', counterparty: AGENT_A });
      expect(decideIntent(toSelf, { group: group(), agent: activeA() }).code).toBe('whitelist_violation');
    });

    it('a deposit needs an allow-listed venue', () => {
      const ok = decideIntent(transfer('1', { action: 'deposit', counterparty: VENUE }), {
        group: group(),
        agent: activeA(),
      });
      expect(ok.accepted).toBe(true);
      const other = decideIntent(transfer('1', { action: 'deposit', counterparty: STRANGER }), {
        group: group(),
        agent: activeA(),
      });
      expect(other.code).toBe('whitelist_violation');
    });
  });

  describe('outcomes', () => {
    const accept = (amount: string, state = activeA()) => {
      const cmd = transfer(amount);
      const d = decideIntent(cmd, { group: group(), agent: state });
      return { cmd, state: d.agentEvents.reduce(evolveAgent, state) };
    };

    it('a failed intent releases its reservation on the daily limit and the hourly cap', () => {
      const { cmd, state } = accept('100');
      const failed = decideSettleIntent(
        {
          intent_id: cmd.intent_id,
          outcome: { status: 'failed', code: 'insufficient_balance', message: 'low' },
          now: T0,
        },
        state,
      );
      expect(failed.map((e) => e.type)).toEqual(['intent.failed']);
      const after = failed.reduce(evolveAgent, state);
      const d = decideIntent(transfer('1'), { group: group(), agent: after });
      expect(d.evaluation.daily_remaining.toFixed()).toBe('1000');
      expect(d.evaluation.hourly_tx_remaining).toBe(10);
    });

    it('a confirmation records the SOL fee and its payer as text; one without them (older) evolves the same', () => {
      const { cmd, state } = accept('10');
      const payer = 'FeePayer1111111111111111111111111111111111';
      const [withFee] = decideSettleIntent(
        {
          intent_id: cmd.intent_id,
          outcome: { status: 'confirmed', tx_sig: 'sig', solFee: { lamports: 10_750n, payer } },
          now: T0,
        },
        state,
      );
      expect(withFee).toEqual({
        type: 'intent.confirmed',
        data: expect.objectContaining({ tx_sig: 'sig', sol_fee_lamports: '10750', fee_payer: payer }),
      });
      const [older] = decideSettleIntent(
        { intent_id: cmd.intent_id, outcome: { status: 'confirmed', tx_sig: 'sig' }, now: T0 },
        state,
      );
      expect(Object.keys(older!.data)).not.toContain('sol_fee_lamports');
      expect(evolveAgent(state, older!)).toEqual(evolveAgent(state, withFee!));
    });

    it('settling twice, or settling an unknown intent, yields nothing', () => {
      const { cmd, state } = accept('10');
      const confirmed = decideSettleIntent(
        { intent_id: cmd.intent_id, outcome: { status: 'confirmed', tx_sig: 'sig' }, now: T0 },
        state,
      );
      const after = confirmed.reduce(evolveAgent, state);
      const again = {
        intent_id: cmd.intent_id,
        outcome: { status: 'failed', code: 'internal_error', message: 'x' },
        now: T0,
      } as const;
      expect(decideSettleIntent(again, after)).toEqual([]);
      expect(decideSettleIntent({ ...again, intent_id: 'nope' }, after)).toEqual([]);
    });

    it('fires policy.limit_threshold once when confirmed spending crosses 80 % of the daily limit', () => {
      let state = activeA(spent('700', T0 - HOUR));
      const { cmd, state: s1 } = accept('99', state);
      const events = decideSettleIntent(
        { intent_id: cmd.intent_id, outcome: { status: 'confirmed', tx_sig: 's' }, now: T0 },
        s1,
      );
      expect(events.map((e) => e.type)).toEqual(['intent.confirmed']);
      state = events.reduce(evolveAgent, s1);
      const { cmd: cmd2, state: s2 } = accept('1', state);
      const crossing = decideSettleIntent(
        { intent_id: cmd2.intent_id, outcome: { status: 'confirmed', tx_sig: 't' }, now: T0 },
        s2,
      );
      expect(crossing).toEqual([
        expect.objectContaining({ type: 'intent.confirmed' }),
        {
          type: 'policy.limit_threshold',
          data: expect.objectContaining({ threshold: 'daily', spent_today: '800', daily_limit: '1000' }),
        },
      ]);
    });

    it('fires the hourly threshold when the eighth of ten operations confirms', () => {
      const state = activeA(...[...Array(7)].map(() => spent('1', T0)));
      const { cmd, state: s } = accept('1', state);
      const events = decideSettleIntent(
        { intent_id: cmd.intent_id, outcome: { status: 'confirmed', tx_sig: 's' }, now: T0 },
        s,
      );
      expect(events[1]).toEqual({
        type: 'policy.limit_threshold',
        data: expect.objectContaining({ threshold: 'hourly', hourly_count: 8 }),
      });
    });

    it('a failed budgeted intent releases the budget', () => {
      const entry = group().entries.get(VENDOR)!;
      const reserved: BudgetEvent[] = [
        {
          type: 'budget.reserved',
          data: { entry_id: VENDOR_ENTRY, intent_id: 'i', agent_id: AGENT_A, amount: '80', at: T0 },
        },
      ];
      const released = decideSettleBudget(
        { intent_id: 'i', confirmed: false, now: T0 },
        entry,
        foldBudget(reserved),
      );
      expect(released).toEqual([
        { type: 'budget.released', data: { entry_id: VENDOR_ENTRY, intent_id: 'i', at: T0 } },
      ]);
      const after = foldBudget([...reserved, ...released]);
      expect(after.reserved.size).toBe(0);
      expect(decideSettleBudget({ intent_id: 'i', confirmed: true, now: T0 }, entry, after)).toEqual([]);
    });
  });

  describe('simulate', () => {
    it('reports the same answer as the decision, with each check, and commits nothing', () => {
      const state = activeA(spent('950', T0 - HOUR));
      const sim = simulateTransfer(transfer('60'), { group: group(), agent: state });
      expect(sim).toEqual(
        expect.objectContaining({
          would_succeed: false,
          reason: 'daily_limit_exceeded',
          hourly_tx_remaining: 10,
        }),
      );
      expect(sim.daily_remaining.toFixed()).toBe('50');
      expect(sim.estimated_fee.toFixed()).toBe('0.06');
      expect(sim.checks.find((c) => c.name === 'daily')).toEqual({
        name: 'daily',
        ok: false,
        code: 'daily_limit_exceeded',
      });
      expect(decideIntent(transfer('60'), { group: group(), agent: state }).code).toBe(sim.reason);
    });

    it('dry-runs a swap against the aggregator’s protocol entry (not a transfer’s types)', () => {
      const swap = { ...transfer('10', { counterparty: AGGREGATOR }), action: 'swap' as const };
      const sim = simulateIntent(swap, { group: group(), agent: activeA() });
      expect(sim.would_succeed).toBe(true);
      expect(sim.estimated_fee.toFixed()).toBe('0');
      expect(
        simulateTransfer(transfer('10', { counterparty: AGGREGATOR }), { group: group(), agent: activeA() })
          .reason,
      ).toBe('whitelist_violation');
    });

    it('an accepted transfer to a budgeted entry records what remains of the budget after it', () => {
      const d = decideIntent(transfer('10', { counterparty: VENDOR }), { group: group(), agent: activeA() });
      expect(d.agentEvents[0]!.data).toEqual(expect.objectContaining({ budget_remaining_after: '490' }));
      const other = decideIntent(transfer('10'), { group: group(), agent: activeA() });
      expect(other.agentEvents[0]!.data).not.toHaveProperty('budget_remaining_after');
    });

    it('reports a budgeted entry’s remaining budget and lifetime', () => {
      const sim = simulateTransfer(transfer('10', { counterparty: VENDOR }), {
        group: group(),
        agent: activeA(),
      });
      expect(sim.budget_remaining?.toFixed()).toBe('500');
      expect(sim.ttl_remaining_ms).toBe(VENDOR_TTL_MS);
    });

    it('without a recipient it checks the limits only', () => {
      const sim = simulateTransfer(
        { ...transfer('10'), counterparty: undefined },
        { group: group(), agent: activeA() },
      );
      expect(sim.would_succeed).toBe(true);
      expect(sim).not.toHaveProperty('reason');
      expect(sim.checks.map((c) => c.name)).toEqual([
        'agent_active',
        'group_not_frozen',
        'agent_not_frozen',
        'amount_positive',
        'fee_carried',
        'per_tx',
        'daily',
        'hourly',
      ]);
    });

    it('reaches each policy code', () => {
      const codes = [
        simulateTransfer(transfer('1', { counterparty: STRANGER }), { group: group(), agent: activeA() })
          .reason,
        simulateTransfer(transfer('1', { counterparty: VENDOR, now: T0 + VENDOR_TTL_MS }), {
          group: group(),
          agent: activeA(),
        }).reason,
        simulateTransfer(transfer('501', { counterparty: VENDOR }), {
          group: group(),
          agent: agent([
            registered(AGENT_A, { per_tx_limit: '1000', daily_limit: '1000', hourly_tx_cap: 1 }),
          ]),
        }).reason,
        simulateTransfer(transfer('101'), { group: group(), agent: activeA() }).reason,
        simulateTransfer(transfer('100'), { group: group(), agent: activeA(spent('901', T0)) }).reason,
        simulateTransfer(transfer('1'), {
          group: group(),
          agent: activeA(...[...Array(10)].map(() => spent('1', T0))),
        }).reason,
      ];
      expect(codes).toEqual([
        'whitelist_violation',
        'whitelist_expired',
        'whitelist_amount_exhausted',
        'per_tx_limit_exceeded',
        'daily_limit_exceeded',
        'hourly_cap_exceeded',
      ]);
    });
  });

  it('keeps the agent state small: settled intents older than the window (plus an hour) are dropped', () => {
    const old = [...Array(50)].map((_, i) => spent('1', T0 - 3 * DAY + i)).flat();
    const state = foldAgent([registered(AGENT_A), ...old, ...spent('1', T0)]);
    expect(state.intents.size).toBe(1);
    expect(BASE_MINT).toBeDefined();
  });
});

describe('a frozen group', () => {
  const frozenEvents = () => {
    const events = groupEvents();
    return [
      ...events,
      ...decideFreezeGroup({ by: 'admin', reason: 'key leaked', now: T0 }, foldGroup(events).governance),
    ];
  };

  it('refuses every spend of every agent of it, withdrawals too, and simulate names the switch', () => {
    const frozen = foldGroup(frozenEvents());
    for (const cmd of [transfer('1'), transfer('1', { action: 'withdraw', counterparty: VENUE })]) {
      const d = decideIntent(cmd, { group: frozen, agent: activeA() });
      expect([d.accepted, d.code]).toEqual([false, 'group_frozen']);
    }
    const sim = simulateIntent(transfer('1'), { group: frozen, agent: activeA() });
    expect(sim.would_succeed).toBe(false);
    expect(sim.reason).toBe('group_frozen');
    expect(sim.checks.find((c) => !c.ok)?.name).toBe('group_not_frozen');
    expect(sim.message).toContain('(key leaked)');
  });

  it('spends again once the freeze is lifted', () => {
    const events = frozenEvents();
    const lifted = foldGroup([...events, ...decideUnfreezeGroup({ now: T0 }, foldGroup(events).governance)]);
    expect(decideIntent(transfer('1'), { group: lifted, agent: activeA() }).accepted).toBe(true);
  });
});

describe('the budget of a type-1 entry, as its reservations settle', () => {
  const vendor = group().entries.get(VENDOR)!;
  /** The vendor's budget of 500. */
  const settleVendorBudget = settleBudget(vendor);
  const reserved = (intent_id: string, amount: string): BudgetEvent => ({
    type: 'budget.reserved',
    data: { entry_id: VENDOR_ENTRY, intent_id, agent_id: AGENT_A, amount, at: T0 },
  });
  const consumed = (intent_id: string, amount: string, amount_used: string): BudgetEvent => ({
    type: 'budget.consumed',
    data: { entry_id: VENDOR_ENTRY, intent_id, amount, amount_used, at: T0 },
  });
  const threshold = (amount_used: string): BudgetEvent => ({
    type: 'policy.whitelist_amount_threshold',
    data: { entry_id: VENDOR_ENTRY, recipient: VENDOR, amount_used, approved_amount: '500', at: T0 },
  });
  const confirm = (intent_id: string) => ({ intent_id, confirmed: true, now: T0 });

  it('a partial spend consumes its value and neither alerts nor voids the budget', () => {
    DeciderSpecification.for(settleVendorBudget)
      .given([reserved('i', '100')])
      .when(confirm('i'))
      .then([consumed('i', '100', '100')]);
  });

  it('the amount used adds up over every consumed reservation', () => {
    DeciderSpecification.for(settleVendorBudget)
      .given([reserved('a', '100'), consumed('a', '100', '100'), reserved('b', '50')])
      .when(confirm('b'))
      .then([consumed('b', '50', '150')]);
  });

  it('the 80 % alert fires when the amount used reaches exactly 80 % of the budget', () => {
    DeciderSpecification.for(settleVendorBudget)
      .given([reserved('i', '400')])
      .when(confirm('i'))
      .then([consumed('i', '400', '400'), threshold('400')]);
  });

  it('the 80 % alert does not fire a base unit below 80 %', () => {
    DeciderSpecification.for(settleVendorBudget)
      .given([reserved('i', '399.999999')])
      .when(confirm('i'))
      .then([consumed('i', '399.999999', '399.999999')]);
  });

  it('the 80 % alert fires once: a later spend past it alerts no more', () => {
    DeciderSpecification.for(settleVendorBudget)
      .given([reserved('a', '400'), consumed('a', '400', '400'), threshold('400'), reserved('b', '50')])
      .when(confirm('b'))
      .then([consumed('b', '50', '450')]);
  });

  it('the spend that uses the budget up exactly voids it, and alerts at 80 % on the way', () => {
    DeciderSpecification.for(settleVendorBudget)
      .given([reserved('a', '300'), consumed('a', '300', '300'), reserved('b', '200')])
      .when(confirm('b'))
      .then([
        consumed('b', '200', '500'),
        threshold('500'),
        {
          type: 'policy.whitelist_voided',
          data: { entry_id: VENDOR_ENTRY, recipient: VENDOR, final_amount_used: '500', at: T0 },
        },
      ]);
  });

  it('a failed intent releases its reservation and uses nothing', () => {
    const spec = DeciderSpecification.for(settleVendorBudget).given([
      reserved('i', '450'),
      reserved('j', '50'),
    ]);
    spec
      .when({ intent_id: 'i', confirmed: false, now: T0 })
      .then([{ type: 'budget.released', data: { entry_id: VENDOR_ENTRY, intent_id: 'i', at: T0 } }]);
    const released = foldBudget([
      reserved('i', '450'),
      reserved('j', '50'),
      { type: 'budget.released', data: { entry_id: VENDOR_ENTRY, intent_id: 'i', at: T0 } },
    ]);
    expect(budgetRemaining(vendor, released).toFixed()).toBe('450');
    expect(released.used.toFixed()).toBe('0');
  });

  it('a reservation settles once: a second outcome, or one for an unknown intent, records nothing', () => {
    const settled = [reserved('i', '100'), consumed('i', '100', '100')];
    DeciderSpecification.for(settleVendorBudget).given(settled).when(confirm('i')).thenNothing();
    DeciderSpecification.for(settleVendorBudget)
      .given(settled)
      .when({ intent_id: 'i', confirmed: false, now: T0 })
      .thenNothing();
    DeciderSpecification.for(settleVendorBudget).given(settled).when(confirm('unknown')).thenNothing();
  });

  it('a reservation on an entry removed or renewed since is consumed, with no alert about a budget that is gone', () => {
    const gone = { entryId: VENDOR_ENTRY, address: VENDOR, type: 1 as const };
    expect(decideSettleBudget(confirm('i'), gone, foldBudget([reserved('i', '500')]))).toEqual([
      consumed('i', '500', '500'),
    ]);
  });

  it('what remains counts what is used and what others reserved, never below zero', () => {
    const state = foldBudget([reserved('a', '100'), consumed('a', '100', '100'), reserved('b', '150')]);
    expect(budgetRemaining(vendor, state).toFixed()).toBe('250');
    expect(budgetRemaining(vendor, state, 'b').toFixed()).toBe('400');
    const over = foldBudget([reserved('a', '400'), reserved('b', '300')]);
    expect(budgetRemaining(vendor, over).toFixed()).toBe('0');
    expect(budgetRemaining(vendor, foldBudget([reserved('a', '500')])).toFixed()).toBe('0');
  });
});

describe('the outcome of an accepted intent, and the 80 % alerts of the limits', () => {
  const confirm = (intent_id: string) => ({
    intent_id,
    outcome: { status: 'confirmed', tx_sig: 'sig' } as const,
    now: T0,
  });
  const intentConfirmed = (intent_id: string): AgentEvent => ({
    type: 'intent.confirmed',
    data: { intent_id, agent_id: AGENT_A, tx_sig: 'sig', at: T0 },
  });
  const alert = (threshold: 'daily' | 'hourly', spent_today: string, hourly_count: number): AgentEvent => ({
    type: 'policy.limit_threshold',
    data: {
      agent_id: AGENT_A,
      threshold,
      spent_today,
      daily_limit: '1000',
      hourly_count,
      hourly_tx_cap: 10,
      at: T0,
    },
  });
  /** Spent and confirmed two hours ago: in today's window, out of this hour's. */
  const earlier = (value: string) => spent(value, T0 - 2 * HOUR);

  it('a confirmation records the transaction, and what a swap received', () => {
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), accepted('i', '10', T0, 'swap')])
      .when({
        intent_id: 'i',
        outcome: { status: 'confirmed', tx_sig: 'sig', received: { amount: new Big('0.5'), mint: VENUE } },
        now: T0,
      })
      .then([
        {
          type: 'intent.confirmed',
          data: {
            intent_id: 'i',
            agent_id: AGENT_A,
            tx_sig: 'sig',
            received_amount: '0.5',
            received_mint: VENUE,
            at: T0,
          },
        },
      ]);
  });

  it('a failure records its code and message', () => {
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), accepted('i', '10', T0)])
      .when({
        intent_id: 'i',
        outcome: { status: 'failed', code: 'insufficient_balance', message: 'The balance 1 is below 10.' },
        now: T0,
      })
      .then([
        {
          type: 'intent.failed',
          data: {
            intent_id: 'i',
            agent_id: AGENT_A,
            code: 'insufficient_balance',
            message: 'The balance 1 is below 10.',
            at: T0,
          },
        },
      ]);
  });

  it('the daily alert fires when confirmed spending reaches exactly 80 % of the daily limit', () => {
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...earlier('700'), accepted('i', '100', T0)])
      .when(confirm('i'))
      .then([intentConfirmed('i'), alert('daily', '800', 1)]);
  });

  it('the daily alert does not fire a base unit below 80 %', () => {
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...earlier('700'), accepted('i', '99.999999', T0)])
      .when(confirm('i'))
      .then([intentConfirmed('i')]);
  });

  it('the daily alert fires once: past 80 % already, a confirmation alerts no more', () => {
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...earlier('800'), accepted('i', '1', T0)])
      .when(confirm('i'))
      .then([intentConfirmed('i')]);
  });

  it('the daily alert counts confirmed spending only: an open reservation neither fires nor pre-empts it', () => {
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...earlier('700'), accepted('open', '60', T0), accepted('i', '100', T0)])
      .when(confirm('i'))
      .then([intentConfirmed('i'), alert('daily', '800', 1)]);
  });

  it('a withdrawal does not count toward the daily alert', () => {
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...earlier('700'), accepted('i', '100', T0, 'withdraw')])
      .when(confirm('i'))
      .then([intentConfirmed('i')]);
  });

  it('the hourly alert fires when the eighth of ten operations in the hour confirms, and only then', () => {
    const inTheHour = (n: number) => [...Array(n)].flatMap(() => spent('1', T0));
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...inTheHour(6), accepted('i', '1', T0)])
      .when(confirm('i'))
      .then([intentConfirmed('i')]);
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...inTheHour(7), accepted('i', '1', T0)])
      .when(confirm('i'))
      .then([intentConfirmed('i'), alert('hourly', '8', 8)]);
    DeciderSpecification.for(settleIntent)
      .given([registered(AGENT_A), ...inTheHour(8), accepted('i', '1', T0)])
      .when(confirm('i'))
      .then([intentConfirmed('i')]);
  });

  it('one confirmation that crosses both thresholds fires both alerts, daily first', () => {
    const inTheHour = [...Array(7)].flatMap(() => spent('100', T0));
    DeciderSpecification.for(settleIntent)
      .given([
        registered(AGENT_A, { ...LIMITS, per_tx_limit: '1000' }),
        ...inTheHour,
        accepted('i', '100', T0),
      ])
      .when(confirm('i'))
      .then([intentConfirmed('i'), alert('daily', '800', 8), alert('hourly', '800', 8)]);
  });
});
