/**
 * The aggregator's settings from the environment: AGGREGATOR_TIMEOUT_MS (each quote or swap request,
 * retries included; 5 s by default), and for Jupiter JUPITER_API_URL and JUPITER_API_KEY (optional,
 * sent as `x-api-key`, never logged).
 */
import type { Env } from './env';
import type { JupiterOptions } from '../aggregator/jupiter';

export interface AggregatorConfig {
  timeoutMs: number;
  jupiter: Pick<JupiterOptions, 'baseUrl' | 'apiKey' | 'timeoutMs'>;
}

export function aggregatorConfig(env: Env): AggregatorConfig {
  const timeoutMs = env.int('AGGREGATOR_TIMEOUT_MS');
  const baseUrl = env.url('JUPITER_API_URL');
  const apiKey = env.raw('JUPITER_API_KEY');
  return { timeoutMs, jupiter: { baseUrl, timeoutMs, ...(apiKey !== undefined && { apiKey }) } };
}
