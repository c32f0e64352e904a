/**
 * Every code of the contract is reachable from the domain: one path per code, run here, and the
 * list must cover the whole catalogue's spec codes (plus the service codes the domain owns).
 */
import Big from 'big.js';
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../errors';
import { thrownBy } from '@tokenops/testing/errors';
import { parseAmount } from '../money';
import { validate } from '../contract';
import { decideFreezeAgent, decideRegister } from './agent';
import { decideFreezeGroup } from './governance';
import { checkFunds, classifyChainFailure } from './chain-outcome';
import { authorizeOperator, decideRemoveEntry, decideSetEntryDailyLimit } from './group';
import { decideIdempotency, inProgress } from './idempotency';
import { decideIntent } from './intent';
import { decideGroupLimits } from './group-limits';
import { swapTerms } from './swap';
import { checkRecipient, resolveToken } from './tokens';
import {
  AGENT_A,
  API_KEY,
  BASE_MINT,
  STRANGER,
  T0,
  VENDOR,
  VENDOR_ENTRY,
  VENDOR_TTL_MS,
  agent,
  group,
  groupEvents,
  registered,
  spent,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { foldBudget } from './budget';
import { decideExpire, decideReject, foldApprovals, refusedHold } from './approval';
import { decideSetApprovalPolicy } from './approval-policy';
import { simulateIntent } from './intent';
import type { ApprovalEvent } from './events';
import {
  checkPaymentAsked,
  checkWithinMax,
  chooseRequirement,
  paymentRefused,
  paymentUnsettled,
  readPaymentRequired,
  refusalOf,
} from '../x402/requirements';
import { checkResourceUrl } from '../x402/resource';

/** A transfer of 60 held by a threshold of 50: the group with the policy, and the approval requested. */
function heldTransfer() {
  const policy = decideSetApprovalPolicy({ threshold: '50', ttl_seconds: 60, now: T0 }, group());
  const withPolicy = group([...groupEvents(), ...policy]);
  const d = decideIntent(transfer('60'), { group: withPolicy, agent: active() });
  return { group: withPolicy, requested: { type: 'approval.requested', data: d.approval! } as ApprovalEvent };
}
const refusal = (decide: (state: ReturnType<typeof foldApprovals>, id: string) => ApprovalEvent[]) => {
  const { requested } = heldTransfer();
  const id = (requested.data as { approval_id: string }).approval_id;
  const state = foldApprovals([requested, ...decide(foldApprovals([requested]), id)]);
  return refusedHold(state.approvals.get(id)!)?.code ?? 'internal_error';
};

const thrownCode = (fn: () => unknown): ErrorCode => thrownBy(fn).code;
const active = (...history: Parameters<typeof spent>[]) =>
  agent([registered(AGENT_A), ...history.flatMap((h) => spent(...h))]);
const blocked = (cmd: ReturnType<typeof transfer>, a = active()) =>
  decideIntent(cmd, { group: group(), agent: a, budget: foldBudget([]) }).code!;

/** A transfer of 1 by an agent of a group whose own limits are `limits`. */
const limitedBy = (limits: { daily_limit?: string; hourly_tx_cap?: number }) => {
  const set = decideGroupLimits({ ...limits, group_id: group().groupId, now: T0 }, {});
  return decideIntent(transfer('1'), { group: group([...groupEvents(), ...set]), agent: active() }).code!;
};

/** A transfer of 1 to the vendor, whose entry's own daily limit is 0.5. */
const entryLimited = () => {
  const set = decideSetEntryDailyLimit({ entry_id: VENDOR_ENTRY, daily_limit: '0.5', now: T0 }, group());
  return decideIntent(transfer('1', { counterparty: VENDOR }), {
    group: group([...groupEvents(), ...set]),
    agent: active(),
    budget: foldBudget([]),
  }).code!;
};

const PATHS: Record<string, () => ErrorCode> = {
  whitelist_violation: () => blocked(transfer('1', { counterparty: STRANGER })),
  whitelist_expired: () => blocked(transfer('1', { counterparty: VENDOR, now: T0 + VENDOR_TTL_MS })),
  whitelist_amount_exhausted: () =>
    blocked(
      transfer('501', { counterparty: VENDOR }),
      agent([registered(AGENT_A, { per_tx_limit: '600', daily_limit: '600', hourly_tx_cap: 5 })]),
    ),
  daily_limit_exceeded: () => blocked(transfer('100'), active(['901', T0])),
  per_tx_limit_exceeded: () => blocked(transfer('100.5')),
  hourly_cap_exceeded: () =>
    blocked(
      transfer('1'),
      active(...Array.from({ length: 10 }, () => ['1', T0] as Parameters<typeof spent>)),
    ),
  entry_daily_limit_exceeded: entryLimited,
  group_daily_limit_exceeded: () => limitedBy({ daily_limit: '0.5' }),
  group_hourly_tx_cap_exceeded: () => limitedBy({ hourly_tx_cap: 0 }),
  unauthorized: () => blocked(transfer('1'), agent([])),
  agent_frozen: () => {
    const a = active();
    return blocked(
      transfer('1'),
      agent([registered(AGENT_A), ...decideFreezeAgent({ by: 'x', now: T0 }, a)]),
    );
  },
  group_frozen: () => {
    const frozen = group([...groupEvents(), ...decideFreezeGroup({ by: 'x', now: T0 }, group().governance)]);
    return decideIntent(transfer('1'), { group: frozen, agent: active(), budget: foldBudget([]) }).code!;
  },
  invalid_amount: () => thrownCode(() => parseAmount('1.0000001')),
  invalid_mint: () => thrownCode(() => resolveToken([], '1'.repeat(33), BASE_MINT)),
  invalid_token_account: () => classifyChainFailure({ logs: ['custom program error: 0x4'] }),
  invalid_fee_account: () => classifyChainFailure({ logs: ['custom program error: 0x4'] }, 'fee'),
  invalid_invitation_code: () =>
    thrownCode(() =>
      decideRegister(
        { agent_id: AGENT_A, invitation_hash: 'x', api_key_hash: API_KEY, now: T0 },
        group(),
        agent([]),
      ),
    ),
  idempotency_in_progress: () =>
    decideIdempotency({ fingerprint: 'f', intent_id: 'i', created_at: T0 }, 'f', T0).kind === 'wait'
      ? inProgress().code
      : 'internal_error',
  aggregator_unavailable: () => thrownCode(() => swapTerms(undefined, { slippage_bps: 50, out_decimals: 6 })),
  token_not_in_registry: () => thrownCode(() => resolveToken([], STRANGER, BASE_MINT)),
  recipient_invalid: () => blocked(transfer('1', { counterparty: AGENT_A })),
  account_not_initialized: () =>
    thrownCode(() => checkFunds({ exists: false, balance: new Big(0) }, new Big(1))),
  insufficient_balance: () => thrownCode(() => checkFunds({ exists: true, balance: new Big(0) }, new Big(1))),
  validation_error: () => thrownCode(() => validate('TransferRequest', {})),
  internal_error: () => classifyChainFailure({ error: 'BlockhashNotFound' }),
  idempotency_key_reused: () =>
    thrownCode(() => decideIdempotency({ fingerprint: 'f', intent_id: 'i', created_at: T0 }, 'g', T0)),
  forbidden: () => thrownCode(() => authorizeOperator(group(), STRANGER)),
  not_found: () => thrownCode(() => decideRemoveEntry({ entry_id: 'nope', now: T0 }, group())),
  conflict: () => thrownCode(() => decideRemoveEntry({ entry_id: 'entry-agent-1', now: T0 }, group())),
  approval_required: () =>
    simulateIntent(transfer('60'), { group: heldTransfer().group, agent: active() }).reason ??
    'internal_error',
  approval_rejected: () =>
    refusal((state, id) => decideReject({ approval_id: id, approver: group().ownerWallet, now: T0 }, state)),
  approval_expired: () => refusal((state, id) => decideExpire({ approval_id: id, now: T0 + 60_000 }, state)),
  x402_url_refused: () => thrownCode(() => checkResourceUrl('http://example.com/')),
  x402_resource_unavailable: () => thrownCode(() => readPaymentRequired(undefined)),
  x402_not_payment_required: () => thrownCode(() => checkPaymentAsked(200)),
  x402_requirements_unsupported: () =>
    thrownCode(() =>
      chooseRequirement(
        { x402Version: 2, resource: { url: 'https://r.example/' }, accepts: [] },
        'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
        [],
      ),
    ),
  x402_price_above_max: () =>
    thrownCode(() =>
      checkWithinMax(
        { price: new Big('0.5'), token: { symbol: 'USDC', mint: BASE_MINT, decimals: 6 } },
        new Big('0.1'),
      ),
    ),
  x402_payment_refused: () => paymentRefused(refusalOf(500), '150').code,
  x402_payment_unsettled: () => paymentUnsettled(refusalOf(500), '150', 60).code,
};

/** Answered by the HTTP layer, not the domain: they are about transport, not the rules of money. */
const TRANSPORT_CODES = ['rate_limited', 'service_unavailable'];

describe('every error code', () => {
  it.each(Object.entries(PATHS))('%s is reachable from the domain', (code, path) => {
    expect(path()).toBe(code);
  });

  it('covers the catalogue: every spec code, and every service code but the transport ones', () => {
    const covered = new Set(Object.keys(PATHS));
    const missing = ERROR_CODES.filter((c) => !covered.has(c) && !TRANSPORT_CODES.includes(c));
    expect(missing).toEqual([]);
    expect(ERROR_CODES.filter((c) => ERROR_CATALOGUE[c].origin === 'spec').every((c) => covered.has(c))).toBe(
      true,
    );
    expect(() => checkRecipient(STRANGER)).not.toThrow();
  });
});
