import { tokenByMint, type Token } from '../../domain/tokens';
import type { Context } from '../context';
import { BuildRefused } from './kind';

/** A registry token an accepted intent names; one that left the registry cannot be built. */
export function tokenOf(ctx: Context, mint: string): Token {
  const token = tokenByMint(ctx.chain.tokens, mint);
  if (!token) throw new BuildRefused('token_not_in_registry', `The token ${mint} left the registry.`);
  return token;
}
