/**
 * The local aggregator: constant-product pools with a 0.30 % fee between every two registry tokens,
 * on the local chain (embedded default and the chain node). No swap program can run here, so a pool
 * is two ordinary SPL token accounts, its vaults: the associated token accounts of the pool's
 * authority, a key the service derives from the chain's seed. A swap is one transaction: the agent's
 * input into the pool's input vault (signed by the agent) and the pool's output to the agent (signed
 * by the pool authority); both land or neither does.
 *
 * The output is fixed in the transaction, computed from the vaults' balances read just before
 * (domain/pool.ts). Two swaps priced on the same reserves and both landed would pay out twice at the
 * same price and break the constant product, so each swap carries its pool's `lockKey`: the executor
 * holds it from `swap` until the transaction has landed or failed.
 *
 * Every process derives the same keys from the same seed: the embedded process and the executors of
 * the server topology (talking to the chain node over JSON-RPC) sign for the same pools.
 */
import { SETTINGS } from '../settings/catalogue';
import Big from 'big.js';
import type { Chain, LocalChain } from '../chain/port';
import { receiptSigner } from '../chain/local-fixtures';
import { derivedSigner, type Signer } from '../chain/keys';
import {
  ata,
  ensureTokenAccount,
  referenceMemo,
  tokenTransfer,
  type BuildContext,
} from '../chain/transactions';
import { POOL_FEE_BPS, slippageThreshold, swapOut } from '../domain/pool';
import type { Token } from '../domain/tokens';
import {
  AggregatorUnavailable,
  BelowMinimum,
  NoRoute,
  checkRequest,
  withDeadline,
  type Aggregator,
  type AggregatorQuote,
  type PreparedSwap,
  type AggregatorQuoteRequest,
  type AggregatorSwapRequest,
} from './port';

export const DEFAULT_AGGREGATOR_TIMEOUT_MS = SETTINGS.AGGREGATOR_TIMEOUT_MS.default;

/**
 * What each pool is seeded with: tokens worth LOCAL_POOL_DEPTH_USD on each side, at these prices
 * (USD a whole token; a token not listed is priced at 1). USDC/SOL: 1,000,000 USDC against 10,000
 * SOL, 100 USDC a SOL; a 1 USDC swap moves the price by about a millionth.
 */
export const LOCAL_POOL_DEPTH_USD = 1_000_000;
export const LOCAL_PRICES_USD: Readonly<Record<string, string>> = { USDC: '1', SOL: '100' };

/** How long a local quote is shown as current (the executor quotes again anyway). */
const QUOTE_TTL_MS = 30_000;

export interface LocalPool {
  /** `A/B` by symbol, in registry order. */
  pair: string;
  /** The pool authority: owns both vaults and signs the output leg. */
  authority: string;
  feeBps: number;
  tokens: [PoolSide, PoolSide];
  /** Swaps on this pool must not be in flight together (PreparedSwap.lockKey). */
  lockKey: string;
}

export interface PoolSide extends Token {
  /** The vault: the authority's associated token account for this mint. */
  vault: string;
  /** Its balance in base units (0 before seeding). */
  reserve: bigint;
}

interface PoolKeys {
  pair: string;
  authority: Signer;
  tokens: [Token, Token];
}

/**
 * The pools between every two registry tokens (a lending venue's receipt tokens are not traded), and
 * their authority keys (from the chain's seed).
 */
export function localPoolKeys(registry: readonly Token[], seed: string): PoolKeys[] {
  const receipts = new Set(registry.map((t) => receiptSigner(seed, t.symbol).address));
  const tokens = registry.filter((t) => !receipts.has(t.mint));
  const pools: PoolKeys[] = [];
  for (let i = 0; i < tokens.length; i++) {
    for (let j = i + 1; j < tokens.length; j++) {
      const pair = `${tokens[i]!.symbol}/${tokens[j]!.symbol}`;
      pools.push({
        pair,
        authority: derivedSigner(seed, `aggregator:pool:${pair}`),
        tokens: [tokens[i]!, tokens[j]!],
      });
    }
  }
  return pools;
}

const lockKeyOf = (pool: PoolKeys) => `local-pool:${pool.authority.address}`;

/** The reserve a pool is seeded with for a token: LOCAL_POOL_DEPTH_USD of it, rounded down. */
export function seedReserve(token: Token): bigint {
  const price = new Big(LOCAL_PRICES_USD[token.symbol] ?? '1');
  const units = new Big(LOCAL_POOL_DEPTH_USD).times(new Big(10).pow(token.decimals)).div(price);
  return BigInt(units.round(0, Big.roundDown).toFixed());
}

/**
 * Creates and funds the local pools once: a vault that holds nothing is minted its seed reserve (as
 * an outside payment would be); a vault that holds reserves is left alone, so calling this at every
 * start does nothing after the first.
 */
export async function ensureLocalPools(chain: LocalChain, seed: string): Promise<void> {
  for (const pool of localPoolKeys(chain.tokens, seed)) {
    for (const token of pool.tokens) {
      const vault = await chain.tokenAccount(pool.authority.address, token.mint);
      if (vault.amount > 0n) continue;
      await chain.mintTo(
        pool.authority.address,
        token.mint,
        seedReserve(token),
        `pool-seed:${pool.pair}:${token.symbol}`,
      );
    }
  }
}

export interface LocalAggregatorOptions {
  /** Reads the registry and the vaults' balances. */
  chain: Pick<Chain, 'tokens' | 'tokenAccount'>;
  /** The chain's seed (CHAIN_SEED; 'local-chain' by default, like the local chain's). */
  seed?: string;
  /** A quote that takes longer is AggregatorUnavailable (AGGREGATOR_TIMEOUT_MS, 5 s by default). */
  timeoutMs?: number;
  now?: () => number;
}

export class LocalAggregator implements Aggregator {
  /** The address groups allow-list: `derivedSigner(seed, 'aggregator')`, as in settings. */
  readonly address: string;
  private readonly chain: Pick<Chain, 'tokens' | 'tokenAccount'>;
  private readonly keys: PoolKeys[];
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(options: LocalAggregatorOptions) {
    const seed = options.seed ?? 'local-chain';
    this.chain = options.chain;
    this.address = derivedSigner(seed, 'aggregator').address;
    this.keys = localPoolKeys(options.chain.tokens, seed);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_AGGREGATOR_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
  }

  /** Every pool with its vaults' balances (for `tokenops pools`). */
  async pools(): Promise<LocalPool[]> {
    return withDeadline('reading the pools', this.timeoutMs, () =>
      Promise.all(
        this.keys.map(async (pool) => {
          const sides = await Promise.all(
            pool.tokens.map(async (token) => {
              const vault = await this.chain.tokenAccount(pool.authority.address, token.mint);
              return { ...token, vault: vault.address, reserve: vault.amount };
            }),
          );
          return {
            pair: pool.pair,
            authority: pool.authority.address,
            feeBps: POOL_FEE_BPS,
            tokens: sides as [PoolSide, PoolSide],
            lockKey: lockKeyOf(pool),
          };
        }),
      ),
    );
  }

  async quote(request: AggregatorQuoteRequest): Promise<AggregatorQuote> {
    const pool = this.poolFor(request);
    return withDeadline(
      'the local quote',
      this.timeoutMs,
      async () => (await this.live(pool, request)).quote,
    );
  }

  async swap(request: AggregatorSwapRequest, chain: BuildContext): Promise<PreparedSwap> {
    const pool = this.poolFor(request);
    const { quote, tokenIn, tokenOut } = await withDeadline('the local quote', this.timeoutMs, () =>
      this.live(pool, { ...request, slippageBps: request.slippageBps ?? 0 }),
    );
    const least = request.minimumOut > 0n ? request.minimumOut : 1n;
    if (quote.outAmount < least) throw new BelowMinimum(request.minimumOut, quote.outAmount);

    const authority = pool.authority.address;
    const source = await ata(request.agent, tokenIn.mint);
    const destination = await ensureTokenAccount(chain, request.agent, tokenOut.mint);
    const instructions = [
      referenceMemo(request.reference),
      ...destination.create,
      tokenTransfer(
        source,
        await ata(authority, tokenIn.mint),
        request.agent,
        tokenIn.mint,
        request.amount,
        tokenIn.decimals,
      ),
      tokenTransfer(
        await ata(authority, tokenOut.mint),
        destination.account,
        authority,
        tokenOut.mint,
        quote.outAmount,
        tokenOut.decimals,
      ),
    ];
    return { instructions, signers: [pool.authority], quote, lockKey: lockKeyOf(pool) };
  }

  private poolFor(request: {
    inputMint: string;
    outputMint: string;
    amount: bigint;
    slippageBps?: number;
  }): PoolKeys {
    checkRequest(request);
    const pool = this.keys.find((p) => {
      const mints = p.tokens.map((t) => t.mint);
      return (
        request.inputMint !== request.outputMint &&
        mints.includes(request.inputMint) &&
        mints.includes(request.outputMint)
      );
    });
    if (!pool) throw new NoRoute(`no local pool between ${request.inputMint} and ${request.outputMint}`);
    return pool;
  }

  /** Prices the swap on the vaults' balances now. */
  private async live(pool: PoolKeys, request: AggregatorQuoteRequest) {
    const [tokenIn, tokenOut] =
      pool.tokens[0].mint === request.inputMint ? pool.tokens : [pool.tokens[1], pool.tokens[0]];
    const [reserveIn, reserveOut] = await Promise.all([
      this.chain.tokenAccount(pool.authority.address, tokenIn.mint),
      this.chain.tokenAccount(pool.authority.address, tokenOut.mint),
    ]);
    if (reserveIn.amount <= 0n || reserveOut.amount <= 0n)
      throw new AggregatorUnavailable(`the local pool ${pool.pair} has no reserves (not seeded)`);
    const swap = swapOut(reserveIn.amount, reserveOut.amount, request.amount);
    const quote: AggregatorQuote = {
      inputMint: tokenIn.mint,
      outputMint: tokenOut.mint,
      inAmount: request.amount,
      outAmount: swap.amountOut,
      otherAmountThreshold: slippageThreshold(swap.amountOut, request.slippageBps),
      slippageBps: request.slippageBps,
      priceImpact: swap.priceImpact,
      route: [`local ${pool.pair}`],
      expiresAt: this.now() + QUOTE_TTL_MS,
    };
    return { quote, tokenIn, tokenOut };
  }
}
