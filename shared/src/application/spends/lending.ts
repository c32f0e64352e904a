/**
 * What deposit and withdraw share: the venue a request names, its cpi_data checked by the venue
 * adapter (only layouts it knows), and a venue's refusal in the contract's terms.
 */
import { ServiceError, validationError } from '../../errors';
import type { LendingVenue, VenueAction } from '../../venues/port';
import { VenueRefused } from '../../venues/port';
import { cpiDataBytes } from '../../venues/klend';
import type { Context } from '../context';
import { BuildRefused } from './kind';

/** The venue behind `lending_program`; one this service cannot operate is refused on that field. */
export function venueOf(ctx: Context, program: string): LendingVenue {
  const venue = ctx.venues.find((v) => v.program === program);
  if (!venue)
    throw validationError([
      { path: '/lending_program', issue: 'is not a lending venue of this service (see GET /api/v1/venues)' },
    ]);
  return venue;
}

/** Checks cpi_data for the action and amount (base units); its bytes as the intent records them. */
export function checkedCpiData(
  venue: LendingVenue,
  action: VenueAction,
  raw: readonly number[] | undefined,
  amount: bigint,
): number[] | undefined {
  try {
    const bytes = cpiDataBytes(raw);
    venue.checkCpiData(action, bytes, amount);
    return bytes && [...bytes];
  } catch (err) {
    throw contractError(err);
  }
}

/** A venue's refusal as the contract says it; anything else as it is. */
export function contractError(err: unknown): unknown {
  if (!(err instanceof VenueRefused)) return err;
  switch (err.reason) {
    case 'cpi_data':
      return validationError([{ path: '/cpi_data', issue: err.message }]);
    case 'mint':
      return validationError([{ path: '/mint', issue: err.message }]);
    case 'amount':
      return new ServiceError('invalid_amount', err.message);
    case 'liquidity':
      return new ServiceError('service_unavailable', err.message);
  }
}

/** A venue's refusal at execution: the intent fails with the same code, nothing is submitted. */
export function refusedAtBuild(err: unknown): unknown {
  const mapped = contractError(err);
  return mapped instanceof ServiceError ? new BuildRefused(mapped.code, mapped.message) : mapped;
}
