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

/**
 * Splits a transfer amount into fee and net.
 *
 * Rounding rule: the fee is amount x 0.001 rounded half-up to the token's precision (its decimals, at
 * most 6); the net is the amount minus that fee. Hence `net_amount + protocol_fee = amount` exactly, for
 * every amount, and the fee is never more than half a base unit away from 0.10 %. Amounts below
 * 0.0005 of a 6-decimal token pay no fee (the hourly cap bounds what splitting can save).
 */
export function splitFee(amount: Amount, decimals = AMOUNT_SCALE): FeeSplit {
  const scale = Math.min(decimals, AMOUNT_SCALE);
  const protocol_fee = amount.times(PROTOCOL_FEE_BPS).div(10_000).round(scale, Big.roundHalfUp);
  return { amount, protocol_fee, net_amount: amount.minus(protocol_fee) };
}
