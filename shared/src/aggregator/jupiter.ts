/**
 * Jupiter's Swap API v1 behind the aggregator port: `GET /quote`, then `POST /swap-instructions`,
 * whose instructions are checked before anything is signed.
 *
 * A small typed client over Node's fetch rather than `@jup-ag/api`: that client's factory sets its own
 * base URL (ours is configurable, JUPITER_API_URL), and its generated mappers rebuild the quote from
 * the fields they know before posting it back, where Jupiter expects the quote as it answered it.
 * Every answer is checked here against the documented shape whatever client reads it.
 *
 * Each request (with its retries) has AGGREGATOR_TIMEOUT_MS (5 s by default): a 429 or a 5xx is
 * retried with exponential backoff and jitter (queue/port.ts's backoffDelay; Retry-After when longer)
 * while the budget lasts; a timeout, a refused connection, another status, or an answer of another
 * shape is AggregatorUnavailable, and Jupiter's "no route" answer is NoRoute.
 *
 * The checks (SwapRefused, nothing signed): only the Compute Budget program (unit limit, and a unit
 * price up to a cap), the Associated Token program (creating the agent's token account for one of
 * the two mints, paid by our fee payer) and Jupiter's program (`route` or `shared_accounts_route`,
 * exact in), with the SPL Token program as its token program; the agent as the transfer authority,
 * its token accounts as source and destination, the swap's mints; the input amount as asked; no
 * platform fee; the on-chain minimum (quoted output less the slippage, rounded down) not below the
 * intent's minimum; no signature asked of anyone but the fee payer (paying for a token account) and
 * the agent (on the swap). No Jito tip, token ledger or cleanup instruction (we ask for none: SOL is
 * neither wrapped nor unwrapped). Address lookup tables are refused: the service compiles legacy
 * messages only, so it asks Jupiter for a legacy-sized route (`asLegacyTransaction`) and refuses a
 * swap that would still need tables rather than build something else.
 *
 * Nothing here can reach Jupiter: the tests run against a local HTTP server answering the documented
 * shapes (jupiter.int.spec.ts).
 */
import { SETTINGS } from '../settings/catalogue';
import { AccountRole, type Address, type Instruction } from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import Big from 'big.js';
import { ata, referenceMemo, type BuildContext } from '../chain/transactions';
import { slippageThreshold } from '../domain/pool';
import { backoffDelay, type RetryPolicy } from '../queue/port';
import {
  AggregatorUnavailable,
  BelowMinimum,
  NoRoute,
  SwapRefused,
  checkRequest,
  type Aggregator,
  type AggregatorQuote,
  type AggregatorQuoteRequest,
  type AggregatorSwapRequest,
  type PreparedSwap,
} from './port';

/** Jupiter's aggregator program (v6), the address groups allow-list on a cluster. */
export const JUPITER_PROGRAM_ADDRESS = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
export const DEFAULT_JUPITER_API_URL = SETTINGS.JUPITER_API_URL.default;
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** Anchor discriminators of the exact-in swap instructions (Jupiter v6 IDL). */
const ROUTE = [229, 23, 203, 151, 122, 227, 173, 42];
const SHARED_ACCOUNTS_ROUTE = [193, 32, 155, 51, 65, 214, 156, 129];

/** Jupiter's answers, as documented (swagger.yaml of jup-ag/jupiter-quote-api-node, Swap API v1). */
export interface JupiterQuoteResponse {
  inputMint: string;
  inAmount: string;
  outputMint: string;
  outAmount: string;
  otherAmountThreshold: string;
  swapMode: 'ExactIn' | 'ExactOut';
  slippageBps: number;
  platformFee?: { amount?: string; feeBps?: number } | null;
  priceImpactPct: string;
  routePlan: {
    swapInfo: {
      ammKey: string;
      label?: string;
      inputMint: string;
      outputMint: string;
      inAmount: string;
      outAmount: string;
    };
    percent?: number | null;
    bps?: number;
  }[];
  contextSlot?: number;
  timeTaken?: number;
}

export interface JupiterInstruction {
  programId: string;
  accounts: { pubkey: string; isSigner: boolean; isWritable: boolean }[];
  /** Base64. */
  data: string;
}

export interface JupiterSwapInstructionsResponse {
  tokenLedgerInstruction?: JupiterInstruction | null;
  otherInstructions?: JupiterInstruction[];
  computeBudgetInstructions: JupiterInstruction[];
  setupInstructions: JupiterInstruction[];
  swapInstruction: JupiterInstruction;
  cleanupInstruction?: JupiterInstruction | null;
  addressLookupTableAddresses: string[];
}

export interface JupiterOptions {
  /** JUPITER_API_URL: `https://api.jup.ag/swap/v1` by default. */
  baseUrl?: string;
  /** Sent as `x-api-key` when set (JUPITER_API_KEY); never logged. */
  apiKey?: string;
  /** The budget of one request with its retries (AGGREGATOR_TIMEOUT_MS, 5 s by default). */
  timeoutMs?: number;
  /** Retries of a 429 or 5xx within the budget: 3 attempts in all, 200 ms then 400 ms, half jitter. */
  retry?: RetryPolicy;
  /** How long a quote is shown as current (20 s by default). */
  quoteTtlMs?: number;
  /** The highest compute unit price accepted (micro-lamports; 1,000,000 by default). */
  maxComputeUnitPriceMicroLamports?: bigint;
  now?: () => number;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, backoffMs: 200, jitter: 0.5 };
const DEFAULT_SLIPPAGE_BPS = 50;
const U64_MAX = 2n ** 64n - 1n;

export class JupiterAggregator implements Aggregator {
  readonly address = JUPITER_PROGRAM_ADDRESS;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly quoteTtlMs: number;
  private readonly maxUnitPrice: bigint;
  private readonly now: () => number;

  constructor(private readonly options: JupiterOptions = {}) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_JUPITER_API_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.quoteTtlMs = options.quoteTtlMs ?? 20_000;
    this.maxUnitPrice = options.maxComputeUnitPriceMicroLamports ?? 1_000_000n;
    this.now = options.now ?? Date.now;
  }

  async quote(request: AggregatorQuoteRequest): Promise<AggregatorQuote> {
    checkRequest(request);
    return (await this.liveQuote(request)).quote;
  }

  async swap(request: AggregatorSwapRequest, chain: BuildContext): Promise<PreparedSwap> {
    checkRequest(request);
    const { raw, quote } = await this.liveQuote({
      ...request,
      slippageBps: request.slippageBps ?? DEFAULT_SLIPPAGE_BPS,
    });
    const least = request.minimumOut > 0n ? request.minimumOut : 1n;
    if (quote.outAmount < least) throw new BelowMinimum(request.minimumOut, quote.outAmount);

    // The program enforces quoted output less the slippage: lower the slippage (never raise it) so
    // that this minimum is at least the intent's. The instruction is checked for it below.
    const room = ((quote.outAmount - request.minimumOut) * 10_000n) / quote.outAmount;
    const slippageBps = Math.min(quote.slippageBps, Number(room));
    const sent = {
      ...raw,
      slippageBps,
      otherAmountThreshold: String(slippageThreshold(quote.outAmount, slippageBps)),
    };
    const built = {
      ...quote,
      slippageBps,
      otherAmountThreshold: BigInt(sent.otherAmountThreshold),
    };

    const answer = await this.request('swap-instructions', '/swap-instructions', {
      method: 'POST',
      body: JSON.stringify({
        userPublicKey: request.agent,
        payer: chain.feePayer,
        quoteResponse: sent,
        wrapAndUnwrapSol: false,
        asLegacyTransaction: true,
        dynamicComputeUnitLimit: true,
      }),
    });
    const instructions = await this.checkedInstructions(shapeOfInstructions(answer), request, chain);
    return { instructions: [referenceMemo(request.reference), ...instructions], signers: [], quote: built };
  }

  private async liveQuote(
    request: AggregatorQuoteRequest,
  ): Promise<{ raw: JupiterQuoteResponse; quote: AggregatorQuote }> {
    const query = new URLSearchParams({
      inputMint: request.inputMint,
      outputMint: request.outputMint,
      amount: request.amount.toString(),
      slippageBps: String(request.slippageBps),
      swapMode: 'ExactIn',
      asLegacyTransaction: 'true',
    });
    const raw = shapeOfQuote(await this.request('quote', `/quote?${query}`, { method: 'GET' }));
    if (raw.inputMint !== request.inputMint || raw.outputMint !== request.outputMint)
      throw new SwapRefused('mint', `the quote is for ${raw.inputMint} → ${raw.outputMint}`);
    if (BigInt(raw.inAmount) !== request.amount)
      throw new SwapRefused('amount', `the quote is for ${raw.inAmount} base units, not ${request.amount}`);
    if (raw.swapMode !== 'ExactIn') throw new SwapRefused('unexpected', `the quote is ${raw.swapMode}`);
    const steps = raw.routePlan.map((s) => s.swapInfo);
    if (
      !steps.some((s) => s.inputMint === request.inputMint) ||
      !steps.some((s) => s.outputMint === request.outputMint)
    )
      throw new SwapRefused('mint', 'the route does not go from the input mint to the output mint');
    const outAmount = BigInt(raw.outAmount);
    const quote: AggregatorQuote = {
      inputMint: raw.inputMint,
      outputMint: raw.outputMint,
      inAmount: BigInt(raw.inAmount),
      outAmount,
      otherAmountThreshold: BigInt(raw.otherAmountThreshold),
      slippageBps: raw.slippageBps,
      priceImpact: new Big(raw.priceImpactPct).toFixed(),
      route: steps.map((s) => s.label ?? s.ammKey),
      expiresAt: this.now() + this.quoteTtlMs,
    };
    return { raw, quote };
  }

  /** One call with its retries, within the budget; answers the parsed JSON body of a 200. */
  private async request(
    what: string,
    path: string,
    init: { method: string; body?: string },
  ): Promise<unknown> {
    const deadline = this.now() + this.timeoutMs;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    for (let attempt = 1; ; attempt++) {
      const remaining = deadline - this.now();
      if (remaining <= 0)
        throw new AggregatorUnavailable(`Jupiter ${what} timed out after ${this.timeoutMs} ms`);
      let status: number;
      let text: string;
      let retryAfter: string | null;
      try {
        const res = await fetch(`${this.baseUrl}${path}`, {
          ...init,
          headers,
          redirect: 'error',
          signal: AbortSignal.timeout(remaining),
        });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (err) {
        const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
        throw new AggregatorUnavailable(
          timedOut
            ? `Jupiter ${what} timed out after ${this.timeoutMs} ms`
            : `Jupiter ${what} could not be reached: ${(err as Error).message}`,
          { cause: err },
        );
      }
      if (status === 200) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new AggregatorUnavailable(`Jupiter ${what} answered something that is not JSON`);
        }
      }
      if (status === 429 || status >= 500) {
        const backoff = backoffDelay(this.retry, attempt, Math.random());
        const asked = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
        const delay = Math.max(backoff, asked);
        if (attempt < this.retry.attempts && this.now() + delay < deadline) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        throw new AggregatorUnavailable(`Jupiter ${what} answered ${status} (${attempt} attempts)`);
      }
      const code = errorCode(text);
      if (status === 400 && code && /ROUTE|NOT_TRADABLE/.test(code))
        throw new NoRoute(`Jupiter found no route (${code})`);
      throw new AggregatorUnavailable(`Jupiter ${what} answered ${status}${code ? ` (${code})` : ''}`);
    }
  }

  /** Checks every instruction Jupiter built, and converts them; refuses (SwapRefused) at the first fault. */
  private async checkedInstructions(
    answer: JupiterSwapInstructionsResponse,
    request: AggregatorSwapRequest,
    chain: BuildContext,
  ): Promise<Instruction[]> {
    if (answer.addressLookupTableAddresses.length > 0)
      throw new SwapRefused(
        'lookup_tables',
        `the swap needs ${answer.addressLookupTableAddresses.length} address lookup table(s); the service signs legacy transactions only`,
      );
    if (answer.otherInstructions && answer.otherInstructions.length > 0)
      throw new SwapRefused('unexpected', 'other instructions (a tip?) that were not asked for');
    if (answer.tokenLedgerInstruction) throw new SwapRefused('unexpected', 'a token ledger instruction');
    if (answer.cleanupInstruction)
      throw new SwapRefused('unexpected', 'a cleanup instruction (SOL is not unwrapped)');

    const mints = [request.inputMint, request.outputMint];
    const agentAccounts = {
      source: await ata(request.agent, request.inputMint),
      destination: await ata(request.agent, request.outputMint),
    };
    for (const ix of answer.computeBudgetInstructions) this.checkComputeBudget(ix);
    for (const ix of answer.setupInstructions) {
      await checkCreateAccount(ix, request.agent, mints, chain.feePayer);
      checkSigners(ix, [chain.feePayer]);
    }
    checkSwap(answer.swapInstruction, request, agentAccounts);
    checkSigners(answer.swapInstruction, [request.agent]);
    return [...answer.computeBudgetInstructions, ...answer.setupInstructions, answer.swapInstruction].map(
      toKit,
    );
  }

  private checkComputeBudget(ix: JupiterInstruction): void {
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM)
      throw new SwapRefused('program', `${ix.programId} among the compute budget instructions`);
    const data = Buffer.from(ix.data, 'base64');
    if (ix.accounts.length > 0)
      throw new SwapRefused('unexpected', 'a compute budget instruction with accounts');
    if (data[0] === 2 && data.length === 5) return; // SetComputeUnitLimit(u32)
    if (data[0] === 3 && data.length === 9) {
      const price = data.readBigUInt64LE(1); // SetComputeUnitPrice(u64 micro-lamports)
      if (price > this.maxUnitPrice)
        throw new SwapRefused(
          'unexpected',
          `a compute unit price of ${price} micro-lamports, above ${this.maxUnitPrice}`,
        );
      return;
    }
    throw new SwapRefused('unexpected', 'a compute budget instruction other than a unit limit or price');
  }
}

/** An associated token account of the agent for one of the swap's mints, paid by the fee payer. */
async function checkCreateAccount(ix: JupiterInstruction, agent: string, mints: string[], feePayer: string) {
  if (ix.programId !== ASSOCIATED_TOKEN_PROGRAM_ADDRESS)
    throw new SwapRefused('program', `a setup instruction of ${ix.programId}`);
  const data = Buffer.from(ix.data, 'base64');
  if (!(data.length === 0 || (data.length === 1 && (data[0] === 0 || data[0] === 1))))
    throw new SwapRefused('unexpected', 'an associated token instruction other than a creation');
  const [payer, account, owner, mint, system, tokenProgram] = ix.accounts.map((a) => a.pubkey);
  if (ix.accounts.length !== 6)
    throw new SwapRefused('unexpected', 'a token account creation of another shape');
  if (system !== SYSTEM_PROGRAM || tokenProgram !== TOKEN_PROGRAM_ADDRESS)
    throw new SwapRefused('program', 'a token account creation with another system or token program');
  if (!mints.includes(mint!))
    throw new SwapRefused('mint', `a token account for ${mint}, not one of the swap's mints`);
  if (owner !== agent) throw new SwapRefused('owner', `a token account for ${owner}, not the agent`);
  if (account !== (await ata(agent, mint!)))
    throw new SwapRefused('owner', `${account} is not the agent's token account`);
  if (payer !== feePayer)
    throw new SwapRefused('signer', `a token account paid by ${payer}, not the fee payer`);
}

/** Jupiter's exact-in route: program, token program, the agent's accounts, mints, amount, minimum. */
function checkSwap(
  ix: JupiterInstruction,
  request: AggregatorSwapRequest,
  agentAccounts: { source: string; destination: string },
): void {
  if (ix.programId !== JUPITER_PROGRAM_ADDRESS)
    throw new SwapRefused('program', `the swap instruction is of ${ix.programId}, not Jupiter's program`);
  const data = Buffer.from(ix.data, 'base64');
  const discriminator = [...data.subarray(0, 8)];
  const same = (d: number[]) => d.every((b, i) => b === discriminator[i]);
  const shared = same(SHARED_ACCOUNTS_ROUTE);
  if (data.length < 8 + 4 + 19 || (!shared && !same(ROUTE)))
    throw new SwapRefused('unexpected', 'a swap instruction other than an exact-in route');
  const keys = ix.accounts.map((a) => a.pubkey);
  // route: token_program, user_transfer_authority, user_source, user_destination,
  //   destination_token_account (optional), destination_mint, platform_fee_account (optional), …
  // shared_accounts_route: token_program, program_authority, user_transfer_authority, source,
  //   program_source, program_destination, destination, source_mint, destination_mint, …
  const at = shared
    ? { authority: 2, source: 3, destination: 6, sourceMint: 7, destinationMint: 8 }
    : { authority: 1, source: 2, destination: 3, sourceMint: -1, destinationMint: 5 };
  if (keys.length < (shared ? 9 : 7))
    throw new SwapRefused('unexpected', 'a swap instruction missing accounts');
  if (keys[0] !== TOKEN_PROGRAM_ADDRESS) throw new SwapRefused('program', `the token program is ${keys[0]}`);
  if (
    keys[at.destinationMint] !== request.outputMint ||
    (shared && keys[at.sourceMint] !== request.inputMint)
  )
    throw new SwapRefused('mint', "the swap's mints are not the request's");
  if (keys[at.authority] !== request.agent || !ix.accounts[at.authority]!.isSigner)
    throw new SwapRefused('owner', `the transfer authority is ${keys[at.authority]}, not the agent`);
  if (keys[at.source] !== agentAccounts.source)
    throw new SwapRefused('owner', `the swap pays from ${keys[at.source]}, not the agent's token account`);
  if (keys[at.destination] !== agentAccounts.destination)
    throw new SwapRefused(
      'owner',
      `the swap pays out to ${keys[at.destination]}, not the agent's token account`,
    );
  if (!shared && keys[4] !== JUPITER_PROGRAM_ADDRESS && keys[4] !== agentAccounts.destination)
    throw new SwapRefused('owner', `the swap pays out to ${keys[4]}, not the agent's token account`);

  // The last arguments of both: in_amount u64, quoted_out_amount u64, slippage_bps u16, platform_fee_bps u8.
  const tail = data.length - 19;
  const inAmount = data.readBigUInt64LE(tail);
  const quotedOut = data.readBigUInt64LE(tail + 8);
  const slippageBps = data.readUInt16LE(tail + 16);
  const platformFeeBps = data.readUInt8(tail + 18);
  if (inAmount !== request.amount)
    throw new SwapRefused('amount', `the swap pays in ${inAmount} base units, not ${request.amount}`);
  if (platformFeeBps !== 0) throw new SwapRefused('threshold', `a platform fee of ${platformFeeBps} bps`);
  if (slippageBps > 10_000) throw new SwapRefused('threshold', `a slippage of ${slippageBps} bps`);
  const enforced = (quotedOut * BigInt(10_000 - slippageBps)) / 10_000n;
  if (enforced < request.minimumOut)
    throw new SwapRefused(
      'threshold',
      `the swap accepts ${enforced} base units out, below the minimum ${request.minimumOut}`,
    );
}

/** Only `allowed` may sign this instruction. */
function checkSigners(ix: JupiterInstruction, allowed: string[]): void {
  for (const a of ix.accounts)
    if (a.isSigner && !allowed.includes(a.pubkey))
      throw new SwapRefused('signer', `a signature asked of ${a.pubkey}`);
}

const toKit = (ix: JupiterInstruction): Instruction => ({
  programAddress: ix.programId as Address,
  accounts: ix.accounts.map((a) => ({
    address: a.pubkey as Address,
    role: a.isSigner
      ? a.isWritable
        ? AccountRole.WRITABLE_SIGNER
        : AccountRole.READONLY_SIGNER
      : a.isWritable
        ? AccountRole.WRITABLE
        : AccountRole.READONLY,
  })),
  data: new Uint8Array(Buffer.from(ix.data, 'base64')),
});

// --- the documented shapes, checked (an answer of another shape is AggregatorUnavailable) ---

class Shape extends AggregatorUnavailable {
  constructor(what: string) {
    super(`Jupiter answered an unexpected shape: ${what}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isU64 = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{1,20}$/.test(v) && BigInt(v) <= U64_MAX;
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function errorCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    return isObject(body) && typeof body.errorCode === 'string' ? body.errorCode : undefined;
  } catch {
    return undefined;
  }
}

function shapeOfQuote(body: unknown): JupiterQuoteResponse {
  if (!isObject(body)) throw new Shape('the quote is not an object');
  for (const f of ['inAmount', 'outAmount', 'otherAmountThreshold'])
    if (!isU64(body[f])) throw new Shape(`quote.${f} is not a u64 in decimal text`);
  for (const f of ['inputMint', 'outputMint', 'swapMode', 'priceImpactPct'])
    if (!isText(body[f])) throw new Shape(`quote.${f} is missing`);
  if (
    !Number.isInteger(body.slippageBps) ||
    (body.slippageBps as number) < 0 ||
    (body.slippageBps as number) > 10_000
  )
    throw new Shape('quote.slippageBps is not a whole number of basis points');
  try {
    new Big(body.priceImpactPct as string);
  } catch {
    throw new Shape('quote.priceImpactPct is not a decimal number');
  }
  if (!Array.isArray(body.routePlan) || body.routePlan.length === 0)
    throw new Shape('quote.routePlan is empty');
  for (const step of body.routePlan) {
    const info = isObject(step) ? step.swapInfo : undefined;
    if (!isObject(info) || !isText(info.ammKey) || !isText(info.inputMint) || !isText(info.outputMint))
      throw new Shape('a quote.routePlan step lacks its swapInfo');
  }
  if (BigInt(body.otherAmountThreshold as string) > BigInt(body.outAmount as string))
    throw new Shape('quote.otherAmountThreshold is above outAmount');
  return body as unknown as JupiterQuoteResponse;
}

function isInstruction(v: unknown): v is JupiterInstruction {
  return (
    isObject(v) &&
    isText(v.programId) &&
    typeof v.data === 'string' &&
    Array.isArray(v.accounts) &&
    v.accounts.every(
      (a) =>
        isObject(a) &&
        isText(a.pubkey) &&
        typeof a.isSigner === 'boolean' &&
        typeof a.isWritable === 'boolean',
    )
  );
}

function shapeOfInstructions(body: unknown): JupiterSwapInstructionsResponse {
  if (!isObject(body)) throw new Shape('the swap instructions are not an object');
  if (!isInstruction(body.swapInstruction)) throw new Shape('swapInstruction is missing');
  for (const f of ['computeBudgetInstructions', 'setupInstructions'])
    if (!Array.isArray(body[f]) || !(body[f] as unknown[]).every(isInstruction))
      throw new Shape(`${f} is not a list of instructions`);
  if (
    body.otherInstructions !== undefined &&
    (!Array.isArray(body.otherInstructions) || !body.otherInstructions.every(isInstruction))
  )
    throw new Shape('otherInstructions is not a list of instructions');
  for (const f of ['tokenLedgerInstruction', 'cleanupInstruction'])
    if (body[f] !== undefined && body[f] !== null && !isInstruction(body[f]))
      throw new Shape(`${f} is not an instruction`);
  if (
    !Array.isArray(body.addressLookupTableAddresses) ||
    !body.addressLookupTableAddresses.every((a) => typeof a === 'string')
  )
    throw new Shape('addressLookupTableAddresses is not a list');
  return body as unknown as JupiterSwapInstructionsResponse;
}
