/**
 * Where swaps and lending go, for each kind of chain: on the local chain, the local pools and the
 * local venue (created once, by the process that owns the chain: the embedded service or the chain
 * node); on a cluster, Jupiter (AGGREGATOR_TIMEOUT_MS, JUPITER_API_URL) and no lending venue yet (a
 * Kamino adapter is described in docs/lending.md, not built).
 */
import type { Aggregator } from '../aggregator/port';
import { LocalAggregator, ensureLocalPools } from '../aggregator/local';
import { JupiterAggregator } from '../aggregator/jupiter';
import type { AggregatorConfig } from './aggregator';
import type { Chain } from '../chain/port';
import type { LendingVenue } from '../venues/port';
import { LocalVenue, ensureLocalVenue, type LocalVenueHost } from '../venues/local';
import type { ChainConfig } from './env';

export interface Markets {
  aggregator: Aggregator;
  venues: LendingVenue[];
}

/** Creates the local pools and venue on a chain this process owns, if they are not there yet. */
export async function seedLocalMarkets(
  chain: LocalVenueHost,
  seed: string,
  venueApyBps?: number,
): Promise<void> {
  await ensureLocalPools(chain, seed);
  await ensureLocalVenue(chain, { seed, ...(venueApyBps !== undefined && { apyBps: venueApyBps }) });
}

/** The aggregator and venues for the chain a process talks to. */
export async function openMarkets(
  chain: Chain,
  config: ChainConfig | { kind: 'local'; seed: string },
  aggregator: Pick<AggregatorConfig, 'timeoutMs' | 'jupiter'> = { timeoutMs: 5_000, jupiter: {} },
): Promise<Markets> {
  if (config.kind === 'local')
    return {
      aggregator: new LocalAggregator({ chain, seed: config.seed, timeoutMs: aggregator.timeoutMs }),
      venues: [await LocalVenue.open(chain, { seed: config.seed })],
    };
  return { aggregator: new JupiterAggregator(aggregator.jupiter), venues: [] };
}
