/**
 * The local chain's fixtures derive from one secret: the fee payer, the mint authority, the treasury,
 * each token's mint, and the local lending venue's keys (its authority, its program id and a receipt
 * mint per token). The LiteSVM chain creates the mints; a JSON-RPC client of that chain derives the
 * same keys from the same secret, so it can pay fees and mint (as an outside party) too.
 */
import type { Token } from '../domain/tokens';
import { derivedSigner, type Signer } from './keys';

export const DEFAULT_LOCAL_TOKENS = [
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'SOL', decimals: 9 },
];

/** A venue receipt token: its own mint, the venue authority mints it, same decimals as its underlying. */
export type ReceiptToken = Token & { signer: Signer; underlying: string };

export interface LocalFixtures {
  payer: Signer;
  /** Mints the tokens of `mints` (outside payments, the venue's interest reserve). */
  authority: Signer;
  treasury: Signer;
  mints: (Token & { signer: Signer })[];
  /** The local lending venue (shared/src/venues/local.ts). */
  venue: {
    /** Owns the vaults and is the mint authority of the receipt tokens. */
    authority: Signer;
    /** The venue's identifier (`lending_program`); no program is deployed at it. */
    program: string;
    /** One receipt token per token of `mints`, in the same order: `k` + its symbol. */
    receipts: ReceiptToken[];
  };
}

export function localFixtures(seed = 'local-chain', tokens = DEFAULT_LOCAL_TOKENS): LocalFixtures {
  const mints = tokens.map((t) => {
    const signer = derivedSigner(seed, `mint:${t.symbol}`);
    return { ...t, mint: signer.address, signer };
  });
  return {
    payer: derivedSigner(seed, 'payer'),
    authority: derivedSigner(seed, 'mint-authority'),
    treasury: derivedSigner(seed, 'treasury'),
    mints,
    venue: {
      authority: derivedSigner(seed, 'venue-authority'),
      program: derivedSigner(seed, 'venue-program').address,
      receipts: mints.map((m) => {
        const signer = receiptSigner(seed, m.symbol);
        return {
          symbol: `k${m.symbol}`,
          mint: signer.address,
          decimals: m.decimals,
          signer,
          underlying: m.mint,
        };
      }),
    },
  };
}

/** The key of the local venue's receipt mint for an underlying token (by its symbol). */
export const receiptSigner = (seed: string, symbol: string): Signer =>
  derivedSigner(seed, `receipt:${symbol}`);

/** The local chain's token registry: its tokens, then the venue's receipt tokens (so balances show positions). */
export function localTokens(fixtures: LocalFixtures): Token[] {
  return [...fixtures.mints, ...fixtures.venue.receipts].map(({ symbol, mint, decimals }) => ({
    symbol,
    mint,
    decimals,
  }));
}
