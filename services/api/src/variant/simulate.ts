/**
 * POST /v1/intents/simulate: a transfer or a swap dry-run through the same evaluation as the real
 * decision (`dryRun`), every check reported as the variant names it; the first failing one is the
 * `reason`, with the variant's code.
 */
import Big from 'big.js';
import {
  ServiceError,
  dryRun,
  swapKind,
  transferDryRun,
  variantErrorBody,
  type Caller,
  type CheckName,
  type Context,
  type Simulation,
  type VariantSimulateRequest,
} from '@tokenops/shared';
import { swapRequest } from './spends';

const DAY_MS = 86_400_000;

export async function simulateVariant(ctx: Context, caller: Caller, req: VariantSimulateRequest) {
  const sim =
    req.type === 'swap'
      ? await dryRun(ctx, caller, 'swap', (group) =>
          swapKind.ask(ctx, swapRequest(ctx, { ...req, idempotency_key: 'simulation' }), group),
        )
      : await dryRun(ctx, caller, 'transfer', (group) =>
          transferDryRun(ctx, { amount: req.amount, to: req.recipient }, group),
        );
  return simulationAnswer(sim);
}

/** A simulation as the variant answers it. */
export function simulationAnswer(sim: Simulation) {
  const ok = (name: CheckName) => sim.checks.find((c) => c.name === name)?.ok ?? true;
  return {
    would_succeed: sim.would_succeed,
    checks: {
      whitelisted: ok('whitelisted') && ok('recipient_valid'),
      ttl_remaining_days:
        sim.ttl_remaining_ms === undefined
          ? null
          : new Big(sim.ttl_remaining_ms).div(DAY_MS).round(6, Big.roundDown),
      amount_remaining: sim.budget_remaining ?? null,
      per_tx_ok: ok('per_tx'),
      // An entry's and the group's own limits (guard) are daily and hourly limits too: `reason` says which refused.
      daily_ok: ok('daily') && ok('entry_daily') && ok('group_daily'),
      hourly_ok: ok('hourly') && ok('group_hourly'),
    },
    fee_preview: sim.estimated_fee,
    ...(sim.reason !== undefined && {
      reason: variantErrorBody(new ServiceError(sim.reason, sim.message)).error,
    }),
    ...(sim.held_by !== undefined && { held_by: sim.held_by }),
  };
}
