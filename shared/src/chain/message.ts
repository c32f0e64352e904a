/**
 * Reads a transaction message from its wire bytes (Solana's legacy and v0 formats): the header, the
 * account keys (as bytes and as base58), the blockhash, the instructions and, for v0, the address
 * table lookups. The chain node's transaction history reads every landed transaction with it, so it
 * works on bytes and keeps the base58 text of the addresses it met (`addressText`): @solana/kit's
 * decoder costs ten times as much per address. A test checks it against @solana/kit's decoder.
 */
import bs58 from 'bs58';

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface AddressTableLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface WireMessage {
  version: 'legacy' | number;
  header: MessageHeader;
  /** The static account keys, base58, in order (the signers first). */
  accountKeys: string[];
  /** The same keys as 32 bytes each. */
  keyBytes: Uint8Array[];
  recentBlockhash: string;
  instructions: CompiledInstruction[];
  addressTableLookups: AddressTableLookup[];
}

// The base58 text of addresses met, kept: a chain sees the same programs, mints and wallets over and over.
const texts = new Map<string, string>();

/** The base58 text of a 32-byte address. */
export function addressText(bytes: Uint8Array): string {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let text = texts.get(key);
  if (text === undefined) {
    if (texts.size > 200_000) texts.clear();
    text = bs58.encode(bytes);
    texts.set(key, text);
  }
  return text;
}

/** The 32 bytes of a message's blockhash, read past its header and account keys only (every send checks it). */
export function blockhashBytesOf(bytes: Uint8Array): Uint8Array {
  let at = (bytes[0] ?? 0) & 0x80 ? 4 : 3;
  let keys = 0;
  for (let shift = 0; shift < 21; shift += 7) {
    const b = bytes[at++] ?? 0;
    keys |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
  }
  at += 32 * keys;
  if (at + 32 > bytes.length) throw new RangeError('the message ends early');
  return bytes.subarray(at, at + 32);
}

export function readMessage(bytes: Uint8Array): WireMessage {
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new RangeError('the message ends early');
  };
  const byte = () => {
    need(1);
    return bytes[at++]!;
  };
  const compact = () => {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const b = byte();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new RangeError('a compact-u16 longer than 3 bytes');
  };
  const take = (n: number) => {
    need(n);
    const out = bytes.subarray(at, at + n);
    at += n;
    return out;
  };
  const indexes = () => Array.from(take(compact()));

  let version: 'legacy' | number = 'legacy';
  if ((bytes[0] ?? 0) & 0x80) version = byte() & 0x7f;
  const header = {
    numRequiredSignatures: byte(),
    numReadonlySignedAccounts: byte(),
    numReadonlyUnsignedAccounts: byte(),
  };
  const keyBytes = Array.from({ length: compact() }, () => take(32));
  const recentBlockhash = addressText(take(32));
  const instructions = Array.from({ length: compact() }, () => ({
    programIdIndex: byte(),
    accounts: indexes(),
    data: take(compact()),
  }));
  const addressTableLookups =
    version === 'legacy'
      ? []
      : Array.from({ length: compact() }, () => ({
          accountKey: addressText(take(32)),
          writableIndexes: indexes(),
          readonlyIndexes: indexes(),
        }));
  return {
    version,
    header,
    accountKeys: keyBytes.map(addressText),
    keyBytes,
    recentBlockhash,
    instructions,
    addressTableLookups,
  };
}

/** Whether the static key at `index` may be written by the transaction (the runtime refuses writes to the others). */
export function isWritableIndex(
  message: Pick<WireMessage, 'header' | 'accountKeys'>,
  index: number,
): boolean {
  const h = message.header;
  if (index < h.numRequiredSignatures) return index < h.numRequiredSignatures - h.numReadonlySignedAccounts;
  return index < message.accountKeys.length - h.numReadonlyUnsignedAccounts;
}
