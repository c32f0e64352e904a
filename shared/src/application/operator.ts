/**
 * What an operator does to its groups and agents. The caller's wallet is authenticated by the API;
 * here every action checks that the wallet owns the group.
 */
import Big from 'big.js';
import {
  authorizeOperator,
  decideAddEntry,
  decideCreateGroup,
  decideInviteAgent,
  decideRemoveEntry,
  type GroupState,
} from '../domain/group';
import { decideChangeLimits, decideRevoke, decideRotateKey } from '../domain/agent';
import { budgetRemaining } from '../domain/budget';
import { ENTRY_TYPE, streams, type EntryType } from '../domain/events';
import { limitsToData, mergeLimits, type LimitsInput } from '../domain/limits';
import { checkRecipient, resolveToken } from '../domain/tokens';
import { amountText, parseAmount, toBaseUnits } from '../money';
import { ServiceError } from '../errors';
import { ChainFailure } from '../chain/port';
import { isLocalChain, type Context } from './context';
import { mintApiKey, mintInvitation, newId } from './credentials';
import { PaymentLog } from './payments';
import { rejectAgentHolds } from './approvals';

const U64_MAX = 2n ** 64n - 1n;
const chainText = (failure: ChainFailure): string => [failure.error, ...failure.logs].join('\n');

export async function ownedGroup(ctx: Context, wallet: string, groupId: string): Promise<GroupState> {
  const { state } = await ctx.groups.load(streams.group(groupId));
  authorizeOperator(state, wallet);
  return state;
}

/** The agent and its group, when `wallet` owns that group. */
export async function ownedAgent(ctx: Context, wallet: string, agentId: string) {
  const agent = await ctx.agents.load(streams.agent(agentId));
  if (agent.state.status === 'unregistered') throw new ServiceError('not_found', 'No such registered agent.');
  await ownedGroup(ctx, wallet, agent.state.groupId);
  return agent;
}

export async function createGroup(
  ctx: Context,
  wallet: string,
  input: { label?: string; limits?: LimitsInput } = {},
) {
  checkRecipient(wallet);
  const groupId = newId();
  const base = ctx.chain.tokens.find((t) => t.symbol === ctx.settings.baseSymbol);
  if (!base) throw new Error(`the base token ${ctx.settings.baseSymbol} is not in the chain's registry`);
  const limits = mergeLimits(ctx.settings.defaultLimits, input.limits ?? {});
  const aggregatorEntry = newId();
  await ctx.groups.handle(streams.group(groupId), (state) => ({
    events: decideCreateGroup(
      {
        group_id: groupId,
        owner_wallet: wallet,
        base_mint: base.mint,
        default_limits: limits,
        aggregator: { entry_id: aggregatorEntry, address: ctx.settings.aggregator },
        now: ctx.now(),
      },
      state,
    ),
    result: undefined,
  }));
  return {
    group_config_pda: groupId,
    owner_wallet: wallet,
    base_mint: base.mint,
    default_limits: limitsToData(limits),
    aggregator: ctx.settings.aggregator,
  };
}

/**
 * The group as its owner sees it, from the log: defaults; each agent with its status (`invited` until
 * its code is redeemed, then `active` or `revoked`) and its limits now; each allow-list entry, and for
 * a budgeted one (type 1) how much of the budget confirmed spends used, open spends hold, and is left.
 */
export async function describeGroup(ctx: Context, wallet: string, groupId: string) {
  const g = await ownedGroup(ctx, wallet, groupId);
  const agents = await Promise.all(
    [...g.invitations.values()].map(async (i) => {
      const { state } = await ctx.agents.load(streams.agent(i.agentId));
      const registered = state.status !== 'unregistered';
      return {
        agent_wallet_pda: i.agentId,
        label: i.label ?? null,
        status: registered ? state.status : 'invited',
        limits: limitsToData(registered ? state.limits : i.limits),
      };
    }),
  );
  const whitelist = await Promise.all(
    [...g.entries.values()].map(async (e) => {
      const budget =
        e.type === ENTRY_TYPE.recipient
          ? (await ctx.budgets.load(streams.budget(e.entryId))).state
          : undefined;
      const reserved = budget && [...budget.reserved.values()].reduce((a, b) => a.plus(b), new Big(0));
      return {
        whitelist_entry_pda: e.entryId,
        address: e.address,
        type: e.type,
        label: e.label ?? null,
        approved_amount: e.approvedAmount ? amountText(e.approvedAmount) : null,
        ttl_expires_at: e.ttlExpiresAt !== undefined ? new Date(e.ttlExpiresAt).toISOString() : null,
        budget_used: budget ? amountText(budget.used) : null,
        budget_reserved: reserved ? amountText(reserved) : null,
        budget_remaining: budget ? amountText(budgetRemaining(e, budget)) : null,
      };
    }),
  );
  return {
    group_config_pda: g.groupId,
    owner_wallet: g.ownerWallet,
    base_mint: g.baseMint,
    default_limits: limitsToData(g.defaultLimits),
    agents,
    whitelist,
  };
}

/**
 * The caller's groups, in the order given (the read models' list of the groups the wallet owns, oldest
 * first): each one's base token, defaults and how many agents and allow-list entries it has, from the log.
 */
export async function listGroups(
  ctx: Context,
  wallet: string,
  owned: readonly { group_id: string; created_at: number }[],
) {
  const groups = await Promise.all(
    owned.map(async ({ group_id, created_at }) => {
      const g = await ownedGroup(ctx, wallet, group_id);
      return {
        group_config_pda: g.groupId,
        created_at: new Date(created_at).toISOString(),
        base_mint: g.baseMint,
        default_limits: limitsToData(g.defaultLimits),
        agents: g.invitations.size,
        whitelist_entries: g.entries.size,
      };
    }),
  );
  return { groups };
}

export interface EntryInput {
  address: string;
  type: EntryType;
  label?: string;
  approved_amount?: unknown;
  ttl_seconds?: unknown;
}

export async function addWhitelistEntry(ctx: Context, wallet: string, groupId: string, input: EntryInput) {
  await ownedGroup(ctx, wallet, groupId);
  checkRecipient(input.address);
  const entryId = newId();
  const [added] = await ctx.groups.handle(streams.group(groupId), (state) => {
    const events = decideAddEntry({ entry_id: entryId, ...input, now: ctx.now() }, state);
    return { events, result: events };
  });
  const d = added!.data;
  return {
    whitelist_entry_pda: d.entry_id,
    address: d.address,
    type: d.type,
    label: d.label ?? null,
    approved_amount: d.approved_amount ?? null,
    ttl_expires_at: d.ttl_expires_at !== undefined ? new Date(d.ttl_expires_at).toISOString() : null,
  };
}

export async function removeWhitelistEntry(ctx: Context, wallet: string, groupId: string, entryId: string) {
  await ownedGroup(ctx, wallet, groupId);
  await ctx.groups.handle(streams.group(groupId), (state) => ({
    events: decideRemoveEntry({ entry_id: entryId, now: ctx.now() }, state),
    result: undefined,
  }));
  return { removed: entryId };
}

/** Invites one agent: a wallet in custody, its limits, and a one-time code shown once. */
export async function invite(
  ctx: Context,
  wallet: string,
  groupId: string,
  input: { limits?: LimitsInput; label?: string } = {},
) {
  await ownedGroup(ctx, wallet, groupId);
  const agentId = await ctx.wallets.create();
  const invitation = mintInvitation(groupId, agentId);
  const now = ctx.now();
  const expiresAt = now + ctx.settings.invitationTtlMs;
  const events = await ctx.groups.handle(streams.group(groupId), (state) => {
    const e = decideInviteAgent(
      {
        agent_id: agentId,
        invitation_hash: invitation.digest,
        expires_at: expiresAt,
        entry_id: newId(),
        now,
        ...(input.limits && { limits: input.limits }),
        ...(input.label !== undefined && { label: input.label }),
      },
      state,
    );
    return { events: e, result: e };
  });
  const invited = events[0]!.data as { limits: ReturnType<typeof limitsToData> };
  return {
    invitation_code: invitation.code,
    agent_wallet_pda: agentId,
    expires_at: new Date(expiresAt).toISOString(),
    limits: invited.limits,
  };
}

/** New limits for an agent; a revoked agent's are final (revocation is), so `conflict`. */
export async function changeLimits(ctx: Context, wallet: string, agentId: string, limits: LimitsInput) {
  await ownedAgent(ctx, wallet, agentId);
  const state = await ctx.agents.handle(streams.agent(agentId), (s) => {
    if (s.status === 'revoked')
      throw new ServiceError('conflict', 'The agent is revoked, and revocation is final: its limits stay.');
    const events = decideChangeLimits({ limits, now: ctx.now() }, s);
    return { events, result: events };
  });
  return { agent_wallet_pda: agentId, limits: (state[0]!.data as { limits: unknown }).limits };
}

export async function revoke(ctx: Context, wallet: string, agentId: string) {
  const agent = await ownedAgent(ctx, wallet, agentId);
  await ctx.agents.handle(streams.agent(agentId), (s) => ({
    events: decideRevoke({ now: ctx.now() }, s),
    result: undefined,
  }));
  // Revoked, it holds nothing more: its held spends are rejected (approvals.ts).
  await rejectAgentHolds(ctx, agent.state.groupId, agentId, 'agent revoked');
  return { agent_wallet_pda: agentId, is_active: 'revoked' };
}

/** A new key; the old one is dead from this append on. The new key is shown once. */
export async function rotateKey(ctx: Context, wallet: string, agentId: string) {
  await ownedAgent(ctx, wallet, agentId);
  const key = mintApiKey(agentId);
  await ctx.agents.handle(streams.agent(agentId), (s) => ({
    events: decideRotateKey({ api_key_hash: key.digest, now: ctx.now() }, s),
    result: undefined,
  }));
  return { agent_wallet_pda: agentId, api_key: key.apiKey };
}

/**
 * Local chain only: an outside party pays `to`. When `to` is a wallet in custody (an agent, invited or
 * registered), the payment is recorded in `payments-<address>` (`payment.received`), which balances
 * and webhooks follow; a separate stream, so a payment before registration does not touch the
 * agent's own. Once: the payment watcher of the server topology sees the same mint and records it
 * under the same id (payments.ts).
 */
export async function airdrop(ctx: Context, input: { to: string; mint?: string; amount: unknown }) {
  const chain = ctx.chain;
  if (!isLocalChain(chain)) throw new ServiceError('not_found', 'Airdrops exist on the local chain only.');
  checkRecipient(input.to);
  const base = chain.tokens.find((t) => t.symbol === ctx.settings.baseSymbol)!;
  const token = resolveToken(chain.tokens, input.mint, base.mint);
  if (!chain.mintable(token.mint)) {
    throw new ServiceError(
      'validation_error',
      `${token.symbol} is a lending venue receipt token: only a deposit mints it.`,
      [{ path: '/mint', issue: 'a receipt token cannot be airdropped' }],
    );
  }
  const amount = parseAmount(input.amount);
  if (amount.lte(0)) throw new ServiceError('invalid_amount', 'The amount must be more than zero.');
  const units = toBaseUnits(amount, token.decimals);
  const tooMuch = () =>
    new ServiceError(
      'invalid_amount',
      `The amount would take ${token.symbol} past the largest supply a token holds (2^64 - 1 base units).`,
    );
  if (units > U64_MAX) throw tooMuch();
  let signature: string;
  try {
    signature = await chain.mintTo(input.to, token.mint, units, `airdrop:${newId()}`);
  } catch (err) {
    // The token program refuses a supply (or a balance) past u64: TokenError::Overflow, 0xe.
    if (err instanceof ChainFailure && /custom program error: 0xe\b|overflow/i.test(chainText(err)))
      throw tooMuch();
    throw err;
  }
  if (await ctx.wallets.inCustody(input.to)) {
    // The same id as the payment watcher's (payments.ts): seen by both, it is recorded once.
    await new PaymentLog(ctx.store).record({
      agent_id: input.to,
      mint: token.mint,
      amount: amountText(amount),
      from: 'airdrop',
      tx_signature: signature,
      at: ctx.now(),
    });
  }
  return {
    tx_signature: signature,
    to: input.to,
    mint: token.mint,
    symbol: token.symbol,
    amount: Number(amount.toFixed()),
  };
}
