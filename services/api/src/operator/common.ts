/**
 * What the operator surface's routes share: the signed-in wallet of a request (401 without a good
 * token, sign-in/auth.ts), a write answered once the agent views include it (boundedly,
 * state/freshness.ts: what it changed reads back at once from any instance), and the limits a body
 * names.
 */
import type { Request, Response } from 'express';
import type { LimitsChangeRequest } from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { bearer } from '../http/auth';
import { showWrite } from '../state/freshness';

export function operatorCalls(deps: ApiDeps) {
  return {
    wallet: (req: Request) => deps.operators.wallet(bearer(req)),
    visible: <T>(res: Response, write: () => Promise<T>): Promise<T> => showWrite(deps, res, write),
  };
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
