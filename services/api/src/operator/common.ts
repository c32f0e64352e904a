/**
 * What the operator surface's routes share: the signed-in wallet of a request (401 without a good
 * token, sign-in/auth.ts; its request counted against the wallet's rate limit), a write answered once the agent views include it (boundedly,
 * state/freshness.ts: what it changed reads back at once from any instance), and the limits a body
 * names.
 */
import type { Request, Response } from 'express';
import type { Governed, LimitsChangeRequest } from '@tokenops/shared';
import type { Call } from '../http/operations';
import type { ApiDeps } from '../deps';
import { bearer } from '../http/auth';
import { showWrite } from '../state/freshness';

/**
 * The wallet of the request's token (an operator's or an auditor's), its request counted against the
 * wallet's limit (OPERATOR_RATE_LIMIT_PER_MINUTE, 429 past it). A token that is not good is a failed
 * authentication (401), counted per client address instead.
 */
export async function signedInWallet(deps: ApiDeps, req: Request): Promise<string> {
  const wallet = await deps.operators.wallet(bearer(req));
  await deps.limits.operator.consume(wallet, req.res!);
  return wallet;
}

export function operatorCalls(deps: ApiDeps) {
  return {
    wallet: (req: Request) => signedInWallet(deps, req),
    visible: <T>(res: Response, write: () => Promise<T>): Promise<T> => showWrite(deps, res, write),
  };
}

/** The answer of a change that may widen: its own (the row's status), or `202` with the proposal. */
export function replyGoverned(reply: Call['reply'], outcome: Governed): void {
  if ('proposed' in outcome) reply(outcome.proposed, 202);
  else reply(outcome.applied);
}

type Limits = Pick<
  LimitsChangeRequest,
  'per_tx_limit' | 'daily_limit' | 'hourly_tx_cap' | 'approval_threshold'
>;

/** The limits a body names, and no others. */
export const limitsInput = (b: Limits): Limits => ({
  ...(b.per_tx_limit !== undefined && { per_tx_limit: b.per_tx_limit }),
  ...(b.daily_limit !== undefined && { daily_limit: b.daily_limit }),
  ...(b.hourly_tx_cap !== undefined && { hourly_tx_cap: b.hourly_tx_cap }),
  ...(b.approval_threshold !== undefined && { approval_threshold: b.approval_threshold }),
});
