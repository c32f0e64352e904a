import Big from 'big.js';
import { AMOUNT_SCALE, type Amount } from './amount';

/** The protocol fee on transfers: 10 basis points, 0.10 %. */
export const PROTOCOL_FEE_BPS = 10;

export interface FeeSplit {
  /** What the sender pays in all: the requested amount. */
  amount: Amount;
  /** What the protocol keeps. */
  protocol_fee: Amount;
  /** What the recipient receives. */
  net_amount: Amount;
}

/** 0.001: the fee's fraction of the amount, exactly. */
const FEE_RATE = new Big(PROTOCOL_FEE_BPS).div(10_000);

/**
 * Splits a transfer amount into fee and net.
 *
 * Rounding rule: the fee is amount x 0.001 rounded half-up to the token's precision (its decimals, at
 * most 6); the net is the amount minus that fee. Hence `net_amount + protocol_fee = amount` exactly, for
 * every amount, and the fee is never more than half a base unit away from 0.10 %. An amount below
 * `minimumTransfer` would pay no fee at all: the spend decision refuses such a transfer
 * (`invalid_amount`), so every transfer pays at least one base unit.
 */
export function splitFee(amount: Amount, decimals = AMOUNT_SCALE): FeeSplit {
  const scale = Math.min(decimals, AMOUNT_SCALE);
  // x 0.001 is x 10 / 10,000 exactly (a product of decimals is exact), without big.js's long division.
  const protocol_fee = amount.times(FEE_RATE).round(scale, Big.roundHalfUp);
  return { amount, protocol_fee, net_amount: amount.minus(protocol_fee) };
}

/**
 * The fee on top of a price the recipient must receive in full (an x402 payment): the same 0.10 % of
 * the price, rounded the same way; `amount` (what the agent pays in all) is the price plus the fee.
 */
export function feeOnTop(price: Amount, decimals = AMOUNT_SCALE): FeeSplit {
  const { protocol_fee } = splitFee(price, decimals);
  return { amount: price.plus(protocol_fee), protocol_fee, net_amount: price };
}

/** minimumTransfer by scale (0 to 6): a memo, each computed once (big.js values are never changed in place). */
const MINIMUM: Amount[] = [];

/**
 * The smallest transfer whose fee is at least one base unit: 500 base units of the fee's precision
 * (0.0005 of a 6-decimal token, 5 of a 2-decimal one), since half a base unit rounds up.
 */
export function minimumTransfer(decimals = AMOUNT_SCALE): Amount {
  const scale = Math.min(decimals, AMOUNT_SCALE);
  return (MINIMUM[scale] ??= new Big(10_000 / PROTOCOL_FEE_BPS / 2).div(new Big(10).pow(scale)));
}
