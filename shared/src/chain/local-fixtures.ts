/**
 * The local chain's fixtures derive from one secret: the fee payer, the mint authority, the treasury
 * and each token's mint. The LiteSVM chain creates them; a JSON-RPC client of that chain derives the
 * same keys from the same secret, so it can pay fees and mint (as an outside party) too.
 */
import type { Token } from '../domain/tokens';
import { derivedSigner, type Signer } from './keys';

export const DEFAULT_LOCAL_TOKENS = [
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'SOL', decimals: 9 },
];

export interface LocalFixtures {
  payer: Signer;
  authority: Signer;
  treasury: Signer;
  mints: (Token & { signer: Signer })[];
}

export function localFixtures(seed = 'local-chain', tokens = DEFAULT_LOCAL_TOKENS): LocalFixtures {
  return {
    payer: derivedSigner(seed, 'payer'),
    authority: derivedSigner(seed, 'mint-authority'),
    treasury: derivedSigner(seed, 'treasury'),
    mints: tokens.map((t) => {
      const signer = derivedSigner(seed, `mint:${t.symbol}`);
      return { ...t, mint: signer.address, signer };
    }),
  };
}
