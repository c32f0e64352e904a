/** The service's settings for a chain: the base token, default limits, the aggregator, timeouts. */
import Big from 'big.js';
import type { Settings } from '../application/context';
import { derivedSigner } from '../chain/keys';
import type { ChainConfig } from './env';

/** Jupiter's aggregator program on Solana clusters. */
const JUPITER = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';

export function settingsFor(
  chain: Pick<ChainConfig, 'kind'> & { seed?: string },
  outcomeTimeoutMs = 30_000,
): Settings {
  return {
    baseSymbol: 'USDC',
    defaultLimits: { per_tx_limit: new Big(100), daily_limit: new Big(1000), hourly_tx_cap: 60 },
    aggregator:
      chain.kind === 'local' ? derivedSigner(chain.seed ?? 'local-chain', 'aggregator').address : JUPITER,
    invitationTtlMs: 7 * 24 * 60 * 60 * 1000,
    outcomeTimeoutMs,
  };
}
