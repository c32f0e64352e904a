/**
 * The compute budget of every transaction the service sends (the executor's spends, the API's
 * emergency sweeps): PRIORITY_FEE, PRIORITY_FEE_PERCENTILE, PRIORITY_FEE_MAX_MICROLAMPORTS and
 * COMPUTE_UNIT_MARGIN_PERCENT, read the same way by every process that sends.
 */
import {
  DEFAULT_COMPUTE_BUDGET,
  parsePriorityFee,
  type ComputeBudgetPolicy,
  type PriorityFeeSetting,
} from '../domain/priority-fee';
import type { Env } from './env';

export function computeBudgetPolicy(env: Env): ComputeBudgetPolicy {
  return {
    setting: priorityFee(env),
    percentile: env.int('PRIORITY_FEE_PERCENTILE'),
    maxMicroLamports: BigInt(env.int('PRIORITY_FEE_MAX_MICROLAMPORTS')),
    marginPercent: env.int('COMPUTE_UNIT_MARGIN_PERCENT'),
  };
}

function priorityFee(env: Env): PriorityFeeSetting {
  try {
    return parsePriorityFee(env.text('PRIORITY_FEE'));
  } catch (err) {
    env.problems.push(`PRIORITY_FEE=${env.text('PRIORITY_FEE')}: ${(err as Error).message}`);
    return DEFAULT_COMPUTE_BUDGET.setting;
  }
}
