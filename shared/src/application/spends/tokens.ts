import { tokenByMint, type Token } from '../../domain/tokens';
import { BuildRefused, type SpendContext } from './kind';

/** A registry token an accepted intent names; one that left the registry cannot be built. */
export function tokenOf(ctx: SpendContext, mint: string): Token {
  const token = tokenByMint(ctx.chain.tokens, mint);
  if (!token) throw new BuildRefused('token_not_in_registry', `The token ${mint} left the registry.`);
  return token;
}
