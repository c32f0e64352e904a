/**
 * The policy preview over the log (domain/preview.ts has the replay): the group's events, read in log
 * order as the audit query reads them (readGroupLog), handed to the pure replay with the owner's
 * proposal (its guard rules checked by parseGuardRules, their bad fields named under `/guard`).
 * Nothing is written.
 */
import {
  ENTRY_TYPE,
  authorizeOperator,
  decodeEvent,
  parseGuardRules,
  previewPolicy,
  streams,
  tokenByMint,
  type EntryType,
  type GuardRule,
  type PolicyProposal,
  type StreamEvent,
} from '../domain';
import { parseAmount } from '../money';
import { ServiceError, validationError } from '../errors';
import { GroupScope, readGroupLog } from './audit';
import type { Context } from './context';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export interface PreviewInput {
  per_tx_limit?: unknown;
  daily_limit?: unknown;
  hourly_tx_cap?: number;
  approval_threshold?: unknown;
  new_recipients?: boolean;
  whitelist_add?: { address: string; type: number; approved_amount?: unknown }[];
  whitelist_remove?: string[];
  /** `{rules: [...]}`, as `PUT .../guard` takes it. */
  guard?: unknown;
  group_limits?: { daily_limit?: unknown; hourly_tx_cap?: number | null };
  since?: string;
}

export async function previewGroupPolicy(ctx: Context, wallet: string, groupId: string, input: PreviewInput) {
  authorizeOperator((await ctx.groups.load(streams.group(groupId))).state, wallet, 'read');
  const to = ctx.now();
  const from = input.since === undefined ? to - WEEK_MS : Date.parse(input.since);
  if (!(from < to)) throw validationError([{ path: '/since', issue: 'must be a time before now' }]);
  const proposal = proposalOf(input);
  const scope = (await GroupScope.load(ctx.store, groupId))!;
  const events: StreamEvent[] = [];
  await readGroupLog(
    ctx.store,
    scope,
    { to },
    {
      onEvent: (e) => {
        const event = decodeEvent(e);
        if (event) events.push({ stream: e.stream, event });
        return true;
      },
    },
  );
  const preview = previewPolicy(
    events,
    proposal,
    { from, to },
    (mint) => tokenByMint(ctx.chain.tokens, mint)?.decimals ?? 6,
  );
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    group_config_pda: groupId,
    from: iso(preview.from),
    to: iso(preview.to),
    intents: preview.intents,
    would_hold: preview.would_hold,
    would_block: preview.would_block,
    examples: preview.examples.map((x) => ({ ...x, at: iso(x.at) })),
    would_freeze: preview.would_freeze.map((f) => ({ ...f, at: iso(f.at) })),
  };
}

/** The proposed guard rules; a bad field is named by its path under `/guard` (`/guard/rules/0/factor`). */
function guardOf(input: unknown): GuardRule[] {
  try {
    return parseGuardRules(input);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'validation_error' && err.details)
      throw validationError(err.details.map((d) => ({ ...d, path: `/guard${d.path}` })));
    throw err;
  }
}

function groupLimitsOf(input: NonNullable<PreviewInput['group_limits']>): PolicyProposal['group_limits'] {
  const { daily_limit: daily, hourly_tx_cap: cap } = input;
  if (cap !== undefined && cap !== null && !(Number.isSafeInteger(cap) && cap >= 0))
    throw validationError([
      { path: '/group_limits/hourly_tx_cap', issue: 'must be a non-negative integer or null' },
    ]);
  return {
    ...(daily !== undefined && {
      daily_limit: daily === null ? null : parseAmount(daily, 'group_limits.daily_limit'),
    }),
    ...(cap !== undefined && { hourly_tx_cap: cap }),
  };
}

function proposalOf(input: PreviewInput): PolicyProposal {
  const amount = (v: unknown, field: string) => (v === undefined ? undefined : parseAmount(v, field));
  const perTx = amount(input.per_tx_limit, 'per_tx_limit');
  const daily = amount(input.daily_limit, 'daily_limit');
  return {
    ...(perTx && { per_tx_limit: perTx }),
    ...(daily && { daily_limit: daily }),
    ...(input.hourly_tx_cap !== undefined && { hourly_tx_cap: input.hourly_tx_cap }),
    ...(input.approval_threshold !== undefined && {
      approval_threshold:
        input.approval_threshold === null
          ? null
          : parseAmount(input.approval_threshold, 'approval_threshold'),
    }),
    ...(input.new_recipients !== undefined && { new_recipients: input.new_recipients }),
    ...(input.whitelist_add && {
      whitelist_add: input.whitelist_add.map((a) => ({
        address: a.address,
        type: a.type as EntryType,
        ...(a.type === ENTRY_TYPE.recipient && {
          approved_amount: parseAmount(a.approved_amount ?? 0, 'approved_amount'),
        }),
      })),
    }),
    ...(input.whitelist_remove && { whitelist_remove: input.whitelist_remove }),
    ...(input.guard !== undefined && { guard: guardOf(input.guard) }),
    ...(input.group_limits && { group_limits: groupLimitsOf(input.group_limits) }),
  };
}
