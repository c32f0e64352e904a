/**
 * Kamino Lending's (klend) instruction layouts for a deposit and a withdrawal, and the checks on
 * `cpi_data`, which the contract calls "an opaque instruction body forwarded to the venue".
 *
 * klend is an Anchor program: an instruction's data is an 8-byte discriminator,
 * sha256("global:<instruction name>")[0..8], then its arguments in Borsh. Both instructions a
 * deposit or a withdrawal needs take one u64:
 *
 *   deposit_reserve_liquidity(liquidity_amount: u64)   underlying paid in
 *   redeem_reserve_collateral(collateral_amount: u64)  receipt tokens (cTokens) redeemed
 */
import { createHash } from 'node:crypto';
import { U64_MAX } from '../domain/venue';
import { VenueDataRejected, type VenueAction } from './port';

/** The most `cpi_data` can hold: a whole Solana transaction is 1,232 bytes. */
export const MAX_CPI_DATA = 1232;

const discriminator = (name: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(`global:${name}`).digest().subarray(0, 8));

export const KLEND_INSTRUCTIONS = {
  deposit: { name: 'deposit_reserve_liquidity', discriminator: discriminator('deposit_reserve_liquidity') },
  withdraw: { name: 'redeem_reserve_collateral', discriminator: discriminator('redeem_reserve_collateral') },
  refresh: { name: 'refresh_reserve', discriminator: discriminator('refresh_reserve') },
} as const;

/** The klend instruction data of a deposit or a withdrawal of `amount`. */
export function klendInstructionData(action: VenueAction, amount: bigint): Uint8Array {
  if (amount < 0n || amount > U64_MAX) throw new RangeError('a klend amount is a u64');
  const data = new Uint8Array(16);
  data.set(KLEND_INSTRUCTIONS[action].discriminator, 0);
  new DataView(data.buffer).setBigUint64(8, amount, true);
  return data;
}

/**
 * The bytes of `cpi_data` as a request carries it (a JSON array): integers 0-255, at most
 * MAX_CPI_DATA of them. Anything else is VenueDataRejected.
 */
export function cpiDataBytes(value: unknown): Uint8Array | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Uint8Array) return checkLength(value);
  if (!Array.isArray(value))
    throw new VenueDataRejected('cpi_data is an array of bytes (integers 0 to 255).');
  checkLength(value);
  const bytes = new Uint8Array(value.length);
  value.forEach((b: unknown, i) => {
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255)
      throw new VenueDataRejected(`cpi_data[${i}] is not a byte (an integer 0 to 255).`);
    bytes[i] = b;
  });
  return bytes;
}

function checkLength<T extends { length: number }>(value: T): T {
  if (value.length > MAX_CPI_DATA)
    throw new VenueDataRejected(`cpi_data holds at most ${MAX_CPI_DATA} bytes (a transaction's size).`);
  return value;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Accepts `cpi_data` that is absent, empty, or exactly klend's instruction for this action with this
 * amount (16 bytes); throws VenueDataRejected, saying what is wrong, for anything else.
 */
export function checkKlendCpiData(action: VenueAction, data: Uint8Array | undefined, amount: bigint): void {
  if (data === undefined || data.length === 0) return;
  checkLength(data);
  const expected = KLEND_INSTRUCTIONS[action];
  const other = KLEND_INSTRUCTIONS[action === 'deposit' ? 'withdraw' : 'deposit'];
  const head = data.subarray(0, 8);
  if (data.length >= 8 && sameBytes(head, other.discriminator))
    throw new VenueDataRejected(`cpi_data is klend's ${other.name}, not ${expected.name} (a ${action}).`);
  if (data.length < 8 || !sameBytes(head, expected.discriminator)) {
    throw new VenueDataRejected(
      `cpi_data is not an instruction layout this venue knows: leave it out, or send klend's ${expected.name} (its 8-byte discriminator and the u64 amount).`,
    );
  }
  if (data.length !== 16)
    throw new VenueDataRejected(
      `klend's ${expected.name} is 16 bytes (discriminator, u64 amount), not ${data.length}.`,
    );
  const said = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(8, true);
  if (said !== amount)
    throw new VenueDataRejected(
      `cpi_data's amount ${said} is not the request's amount ${amount} (base units).`,
    );
}
