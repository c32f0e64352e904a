/**
 * The token registry: which mints the service moves, under which symbol, with how many decimals.
 * Resolving a caller's mint or symbol is pure; the registry itself comes from the chain adapter.
 */
import bs58 from 'bs58';
import { ServiceError } from '../errors';

export interface Token {
  symbol: string;
  mint: string;
  decimals: number;
}

export type TokenRegistry = readonly Token[];

/** The registry's token for a mint, if it lists one. */
export function tokenByMint(registry: TokenRegistry, mint: string): Token | undefined {
  return registry.find((t) => t.mint === mint);
}

/** Whether a string is a base58 encoding of 32 bytes (an ed25519 public key or a program address). */
export function isAddress(value: string): boolean {
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}

/**
 * The token for a mint (or, with no mint, the group's base token). A mint that is not a 32-byte
 * address is `invalid_mint`; a valid one we do not list is `token_not_in_registry`.
 */
export function resolveToken(registry: TokenRegistry, mint: string | undefined, baseMint: string): Token {
  const wanted = mint ?? baseMint;
  if (!isAddress(wanted)) throw new ServiceError('invalid_mint', 'The mint is not a 32-byte base58 address.');
  const token = tokenByMint(registry, wanted);
  if (!token) throw new ServiceError('token_not_in_registry');
  return token;
}

/** A swap names each side by symbol and mint; they must agree. */
export function resolveSwapSide(
  registry: TokenRegistry,
  symbol: string,
  mint: string,
  side: 'from' | 'to',
): Token {
  const token = resolveToken(registry, mint, mint);
  if (token.symbol.toUpperCase() !== symbol.toUpperCase()) {
    throw new ServiceError('invalid_mint', `The ${side}_mint is ${token.symbol}, not ${symbol}.`);
  }
  return token;
}

/** A recipient must be a 32-byte address. */
export function checkRecipient(address: string): void {
  if (!isAddress(address))
    throw new ServiceError('recipient_invalid', 'The recipient is not a 32-byte base58 address.');
}
