/**
 * What deposit and withdraw share: the venue a request names, its cpi_data checked by the venue
 * adapter (only layouts it knows), and a venue's refusal in the contract's terms. A program that is
 * not on the group's allow-list is a spend aimed at an unknown program: the decision refuses it
 * (403 whitelist_violation, recorded and sent to the webhooks), as a transfer to a stranger.
 */
import { ServiceError, validationError } from '../../errors';
import type { LendingVenue, VenueAction } from '../../venues/port';
import { VenueRefused } from '../../venues/port';
import { cpiDataBytes } from '../../venues/klend';
import type { Signer } from '../../chain/keys';
import type { GroupState } from '../../domain/group';
import { ENTRY_TYPE } from '../../domain/events';
import { amountFromText, toBaseUnits } from '../../money';
import { BuildRefused, type Ask, type Built, type IntentOf, type SpendContext } from './kind';
import { tokenOf } from './tokens';
import { tokenAsk } from './valuation';

/** The venue behind `lending_program`; one this service cannot operate is refused on that field. */
export function venueOf(ctx: SpendContext, program: string): LendingVenue {
  const venue = ctx.venues.find((v) => v.program === program);
  if (!venue)
    throw validationError([
      { path: '/lending_program', issue: 'is not a lending venue of this service (see GET /api/v1/venues)' },
    ]);
  return venue;
}

/**
 * The venue a deposit or withdrawal names, or undefined when the group does not allow-list the program
 * as a venue (type 2) and this service knows no venue there: the decision then refuses it. A program
 * the group allow-lists that is no lending venue of this service (the aggregator) is refused on the field.
 */
export function requestedVenue(
  ctx: SpendContext,
  program: string,
  group: GroupState,
): LendingVenue | undefined {
  const known = ctx.venues.some((v) => v.program === program);
  return known || group.entries.get(program)?.type === ENTRY_TYPE.protocol
    ? venueOf(ctx, program)
    : undefined;
}

/** The ask of a deposit or withdrawal at a program that is not allow-listed: only what the decision needs to refuse it. */
export async function unlistedProgramAsk(
  ctx: SpendContext,
  req: { lending_program: string; amount: unknown; mint?: string },
  group: GroupState,
): Promise<Ask> {
  return { ...(await tokenAsk(ctx, req, group)), counterparty: req.lending_program };
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

/** What a deposit or a withdrawal puts on chain: the venue's plan, and what comes back to the agent. */
export async function buildAtVenue(
  ctx: SpendContext,
  intent: IntentOf<'deposit'> | IntentOf<'withdraw'>,
  agent: Signer,
): Promise<Built> {
  const venue = venueOf(ctx, intent.counterparty);
  const units = toBaseUnits(amountFromText(intent.amount), tokenOf(ctx, intent.mint).decimals);
  const common = {
    agent: agent.address,
    mint: intent.mint,
    ...(intent.params.cpi_data && { cpiData: Uint8Array.from(intent.params.cpi_data) }),
    reference: `intent:${intent.intent_id}`,
  };
  try {
    if (intent.action === 'deposit') {
      const plan = await venue.deposit({ ...common, amount: units });
      return { ...plan, receives: { mint: plan.receiptMint, amount: plan.receiptAmount } };
    }
    const plan = await venue.withdraw({ ...common, receiptAmount: units });
    return { ...plan, receives: { mint: plan.underlyingMint, amount: plan.underlyingAmount } };
  } catch (err) {
    throw refusedAtBuild(err);
  }
}
