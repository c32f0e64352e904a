/**
 * What a process needs to pay x402 resources: the guarded resource client (the webhooks' SSRF guard
 * and settings) and the network it pays on (X402_NETWORK, a CAIP-2 id of a Solana cluster).
 */
import type { Context } from '../application/context';
import type { Env } from './env';
import { outboundGuard } from './webhooks';
import type { GuardOptions } from '../net/guarded-agent';
import { SOLANA_NETWORKS } from '../x402/requirements';
import { ResourceClient } from '../x402/resource';

export const DEFAULT_X402_NETWORK = SOLANA_NETWORKS.devnet;

/** The network from X402_NETWORK (a problem reported when it is not one of Solana's clusters). */
export function x402Network(env: Env): string {
  const network = env.text('X402_NETWORK');
  if (!(Object.values(SOLANA_NETWORKS) as string[]).includes(network))
    env.problems.push(
      `X402_NETWORK=${network}: not the CAIP-2 id of Solana's mainnet, devnet or testnet (${Object.values(SOLANA_NETWORKS).join(', ')})`,
    );
  return network;
}

/** The x402 part of a context: from the environment, or from a guard given (the embedded default's tests). */
export function x402Context(
  guard: GuardOptions,
  network: string = DEFAULT_X402_NETWORK,
): NonNullable<Context['x402']> & { close(): Promise<void> } {
  const resources = new ResourceClient(guard);
  return { resources, network, close: () => resources.close() };
}

export { outboundGuard };
