/**
 * What a resource asks for, and which of it the service can pay: the x402 v2 `PAYMENT-REQUIRED`
 * header read (base64 JSON, as @x402/core encodes it), and the one requirement chosen: scheme `exact`,
 * on the service's network (its CAIP-2 id), in a registry token, paying a Solana address, with the
 * facilitator's fee payer named. Anything else is refused with a reason naming what was asked. Pure.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { isAddress, tokenByMint, type Token } from '../domain/tokens';
import { ServiceError } from '../errors';
import { fromBaseUnits, type Amount } from '../money';

/** Solana's clusters by CAIP-2 id (what @x402/svm knows). */
export const SOLANA_NETWORKS = {
  mainnet: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  devnet: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  testnet: 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
} as const;

/** The header a 402 carries its requirements in (HTTP header names are case-insensitive). */
export const PAYMENT_REQUIRED_HEADER = 'payment-required';
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE';
export const PAYMENT_RESPONSE_HEADER = 'payment-response';

/** The requirement chosen, with the registry token it pays in and its price in human units. */
export interface Chosen {
  paymentRequired: PaymentRequired;
  requirement: PaymentRequirements;
  token: Token;
  price: Amount;
  feePayer: string;
}

const unsupported = (message: string) => new ServiceError('x402_requirements_unsupported', message);

/** The first answer must be a 402: anything else asks for no payment (nothing is paid). */
export function checkPaymentAsked(status: number): void {
  if (status !== 402)
    throw new ServiceError(
      'x402_not_payment_required',
      `The resource answered ${status} without asking for a payment; nothing was paid.`,
    );
}

/** The price must be within the request's max_amount. */
export function checkWithinMax(chosen: Pick<Chosen, 'price' | 'token'>, max: Amount): void {
  if (chosen.price.gt(max))
    throw new ServiceError(
      'x402_price_above_max',
      `The resource asks ${chosen.price.toFixed()} ${chosen.token.symbol}, above max_amount ${max.toFixed()}; nothing was paid.`,
    );
}

/** What the resource did with the paid request: answered without a settlement. */
export const refusalOf = (status: number, reason = ''): string =>
  `The resource answered ${status} without settling the payment${reason}`;

/**
 * A payment the resource refused that can still land (whoever holds it may send it until its blockhash
 * expires): the key stays open, and its room reserved, until then.
 */
export const paymentUnsettled = (
  refusal: string,
  lastValidBlockHeight: string,
  seconds: number,
): ServiceError =>
  new ServiceError(
    'x402_payment_unsettled',
    `${refusal}. It is not on chain, but whoever holds it can land it until block ${lastValidBlockHeight} (about ${seconds} s from now): its amount stays reserved against the limits until then. Retry the same request (same idempotency key) after that for the result.`,
    undefined,
    seconds,
  );

/** A payment the resource refused that can no longer land, and did not: refused, nothing paid. */
export const paymentRefused = (refusal: string, lastValidBlockHeight: string): ServiceError =>
  new ServiceError(
    'x402_payment_refused',
    `${refusal}; it did not land before its blockhash expired (after block ${lastValidBlockHeight}), and nothing was paid.`,
  );

/** Reads the 402's header; a resource that answers 402 without readable x402 v2 requirements is unavailable. */
export function readPaymentRequired(header: string | undefined): PaymentRequired {
  if (!header)
    throw new ServiceError(
      'x402_resource_unavailable',
      'The resource answered 402 without a PAYMENT-REQUIRED header; it does not speak x402 v2.',
    );
  let parsed: unknown;
  try {
    parsed = decodePaymentRequiredHeader(header);
  } catch {
    throw new ServiceError('x402_resource_unavailable', 'The PAYMENT-REQUIRED header is not base64 JSON.');
  }
  const p = parsed as Partial<PaymentRequired>;
  if (p?.x402Version !== 2 || !Array.isArray(p.accepts))
    throw unsupported(
      `The resource asks for x402 version ${String(p?.x402Version)}; this service pays x402 version 2.`,
    );
  return p as PaymentRequired;
}

/** The `exact` requirement on `network` in a registry token, or why none can be paid (the first reason). */
export function chooseRequirement(
  paymentRequired: PaymentRequired,
  network: string,
  registry: readonly Token[],
): Chosen {
  const reasons: string[] = [];
  for (const r of paymentRequired.accepts) {
    const reason = refusal(r, network, registry);
    if (reason) {
      reasons.push(reason);
      continue;
    }
    const token = tokenByMint(registry, r.asset)!;
    return {
      paymentRequired,
      requirement: r,
      token,
      price: fromBaseUnits(BigInt(r.amount), token.decimals),
      feePayer: r.extra.feePayer as string,
    };
  }
  throw unsupported(
    reasons.length === 0
      ? 'The resource lists no payment requirement.'
      : `No payment requirement of the resource can be paid by this service: ${reasons.join('; ')}.`,
  );
}

function refusal(r: PaymentRequirements, network: string, registry: readonly Token[]): string | undefined {
  if (r?.scheme !== 'exact') return `scheme ${String(r?.scheme)} (only exact is paid)`;
  if (r.network !== network) return `network ${String(r.network)} (the service pays on ${network})`;
  if (typeof r.asset !== 'string' || !tokenByMint(registry, r.asset))
    return `asset ${String(r.asset)} is not in the token registry`;
  if (typeof r.amount !== 'string' || !/^[1-9][0-9]{0,19}$/.test(r.amount) || BigInt(r.amount) >= 2n ** 64n)
    return `amount ${String(r.amount)} is not a positive whole number of base units`;
  if (typeof r.payTo !== 'string' || !isAddress(r.payTo)) return `payTo ${String(r.payTo)} is not an address`;
  const feePayer = r.extra?.feePayer;
  if (typeof feePayer !== 'string' || !isAddress(feePayer)) return 'no extra.feePayer (the facilitator)';
  return undefined;
}
