/**
 * The Jupiter adapter against a local HTTP server that answers Jupiter's documented Swap API v1 shapes
 * (quote, swap-instructions, its error answers, 429 and 5xx). Nothing here reaches Jupiter itself.
 * The swap instruction the server builds follows the v6 program's IDL (`route`: discriminator, route
 * plan, in_amount, quoted_out_amount, slippage_bps, platform_fee_bps), so the checks read real bytes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import bs58 from 'bs58';
import { generateSigner } from '../chain/keys';
import { ata, signTransaction, type BuildContext } from '../chain/transactions';
import {
  JUPITER_PROGRAM_ADDRESS,
  JupiterAggregator,
  type JupiterInstruction,
  type JupiterOptions,
  type JupiterSwapInstructionsResponse,
} from './jupiter';
import { AggregatorUnavailable, BelowMinimum, NoRoute, SwapRefused, type RefusalReason } from './port';
import { aggregatorContract } from './contract';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL = 'So11111111111111111111111111111111111111112';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';
const ROUTE = [229, 23, 203, 151, 122, 227, 173, 42];

const agent = generateSigner();
const feePayer = generateSigner();
const stranger = generateSigner().address;
const pool = [generateSigner().address, generateSigner().address, generateSigner().address];
const build: BuildContext = { feePayer: feePayer.address, accountKnown: async () => false };

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | undefined;
}
type Reply = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> } | 'hang';
type Handler = (req: Seen) => Reply | Promise<Reply>;
type InstructionsAnswer = JupiterSwapInstructionsResponse & { otherInstructions: JupiterInstruction[] };

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let handler: Handler;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const s: Seen = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      };
      seen.push(s);
      void Promise.resolve(handler(s)).then((reply) => {
        if (reply === 'hang') return; // never answers
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.raw ?? JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/swap/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
  handler = jupiter();
});

const aggregator = (options: JupiterOptions = {}) =>
  new JupiterAggregator({ baseUrl, retry: { attempts: 3, backoffMs: 20, jitter: 0 }, ...options });

// --- a Jupiter that answers the documented shapes ---

function quoteAnswer(q: URLSearchParams) {
  const inAmount = q.get('amount')!;
  const outAmount = ((BigInt(inAmount) * 9_969_990n) / 1_000_000n).toString();
  const bps = Number(q.get('slippageBps'));
  return {
    inputMint: q.get('inputMint'),
    inAmount,
    outputMint: q.get('outputMint'),
    outAmount,
    otherAmountThreshold: (BigInt(outAmount) - (BigInt(outAmount) * BigInt(bps)) / 10_000n).toString(),
    swapMode: 'ExactIn',
    slippageBps: bps,
    platformFee: null,
    priceImpactPct: '0.0000010',
    routePlan: [
      {
        swapInfo: {
          ammKey: pool[0],
          label: 'Whirlpool',
          inputMint: q.get('inputMint'),
          outputMint: q.get('outputMint'),
          inAmount,
          outAmount,
        },
        percent: 100,
        bps: 10_000,
      },
    ],
    contextSlot: 312_345_678,
    timeTaken: 0.0123,
  };
}

const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return [...b];
};

/** Jupiter's `route` instruction data: discriminator, a one-step route plan, then the amounts. */
function routeData(inAmount: bigint, quotedOut: bigint, slippageBps: number, platformFeeBps = 0): string {
  const step = [7, 100, 0, 1]; // a swap variant, 100 percent, input index 0, output index 1
  const slippage = Buffer.alloc(2);
  slippage.writeUInt16LE(slippageBps);
  return Buffer.from([
    ...ROUTE,
    1,
    0,
    0,
    0,
    ...step,
    ...u64(inAmount),
    ...u64(quotedOut),
    ...slippage,
    platformFeeBps,
  ]).toString('base64');
}

const meta = (pubkey: string, isSigner = false, isWritable = false) => ({ pubkey, isSigner, isWritable });

/** What Jupiter answers to /swap-instructions for the posted quote and user. */
async function instructionsAnswer(body: Record<string, unknown>): Promise<InstructionsAnswer> {
  const quote = body.quoteResponse as ReturnType<typeof quoteAnswer>;
  const user = body.userPublicKey as string;
  const payer = (body.payer as string) ?? user;
  const source = await ata(user, quote.inputMint!);
  const destination = await ata(user, quote.outputMint!);
  const unitPrice = Buffer.from([3, ...u64(1_000n)]).toString('base64');
  const unitLimit = Buffer.from([2, 0x40, 0x0d, 0x03, 0x00]).toString('base64'); // 200,000
  return {
    tokenLedgerInstruction: null,
    otherInstructions: [],
    computeBudgetInstructions: [
      { programId: COMPUTE_BUDGET, accounts: [], data: unitLimit },
      { programId: COMPUTE_BUDGET, accounts: [], data: unitPrice },
    ],
    setupInstructions: [
      {
        programId: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
        accounts: [
          meta(payer, true, true),
          meta(destination, false, true),
          meta(user),
          meta(quote.outputMint!),
          meta(SYSTEM),
          meta(TOKEN_PROGRAM_ADDRESS),
        ],
        data: Buffer.from([1]).toString('base64'),
      },
    ],
    swapInstruction: {
      programId: JUPITER_PROGRAM_ADDRESS,
      accounts: [
        meta(TOKEN_PROGRAM_ADDRESS),
        meta(user, true, false),
        meta(source, false, true),
        meta(destination, false, true),
        meta(JUPITER_PROGRAM_ADDRESS),
        meta(quote.outputMint!),
        meta(JUPITER_PROGRAM_ADDRESS),
        meta(pool[0]!, false, true),
        meta(pool[1]!, false, true),
        meta(pool[2]!, false, true),
      ],
      data: routeData(BigInt(quote.inAmount), BigInt(quote.outAmount), quote.slippageBps),
    },
    cleanupInstruction: null,
    addressLookupTableAddresses: [],
  };
}

/** A Jupiter answering both endpoints for USDC and SOL (no route for any other mint). */
function jupiter(): Handler {
  return async (req) => {
    if (req.method === 'GET' && req.path === '/swap/v1/quote') {
      const traded = [USDC, SOL];
      if (!traded.includes(req.query.get('inputMint')!) || !traded.includes(req.query.get('outputMint')!))
        return {
          status: 400,
          body: { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' },
        };
      return { status: 200, body: quoteAnswer(req.query) };
    }
    if (req.method === 'POST' && req.path === '/swap/v1/swap-instructions') {
      return { status: 200, body: await instructionsAnswer(req.body!) };
    }
    return { status: 404, body: { error: 'Not Found' } };
  };
}

aggregatorContract('Jupiter (a local server answering its documented shapes)', async () => ({
  aggregator: aggregator(),
  build,
  inputMint: USDC,
  outputMint: SOL,
  amount: 1_000_000n,
  unrouted: stranger,
  agent: agent.address,
  close: async () => {},
}));

const swapRequest = (minimumOut: bigint, amount = 1_000_000n) => ({
  agent: agent.address,
  inputMint: USDC,
  outputMint: SOL,
  amount,
  minimumOut,
  reference: 'intent:jup-1',
});

async function failureOf(p: Promise<unknown>): Promise<unknown> {
  const outcome = await p.then(
    () => ({ failed: false, error: undefined as unknown }),
    (error: unknown) => ({ failed: true, error }),
  );
  if (!outcome.failed) throw new Error('expected a failure');
  return outcome.error;
}

const posts = () => seen.filter((s) => s.path.endsWith('/swap-instructions'));

describe('Jupiter quotes', () => {
  it('asks GET /quote for an exact-in, legacy-sized route and answers base units, threshold, impact, route', async () => {
    const before = Date.now();
    const q = await aggregator({ apiKey: 'k-123' }).quote({
      inputMint: USDC,
      outputMint: SOL,
      amount: 2_000_000n,
      slippageBps: 50,
    });
    expect(Object.fromEntries(seen[0]!.query)).toEqual({
      inputMint: USDC,
      outputMint: SOL,
      amount: '2000000',
      slippageBps: '50',
      swapMode: 'ExactIn',
      asLegacyTransaction: 'true',
    });
    expect(seen[0]!.headers['x-api-key']).toBe('k-123');
    expect(q).toEqual({
      inputMint: USDC,
      outputMint: SOL,
      inAmount: 2_000_000n,
      outAmount: 19_939_980n,
      otherAmountThreshold: 19_939_980n - 99_699n,
      slippageBps: 50,
      priceImpact: '0.000001',
      route: ['Whirlpool'],
      expiresAt: expect.any(Number),
    });
    expect(q.expiresAt).toBeGreaterThan(before);
  });

  it('sends no API key header when none is configured', async () => {
    await aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 });
    expect(seen[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('retries a 429 and a 503 with backoff within the budget, then answers', async () => {
    const answers: Reply[] = [
      { status: 429, body: { error: 'Too Many Requests' } },
      { status: 503, body: { error: 'Service Unavailable' } },
    ];
    const ok = jupiter();
    handler = (req) => answers.shift() ?? ok(req);
    const q = await aggregator().quote({
      inputMint: USDC,
      outputMint: SOL,
      amount: 1_000_000n,
      slippageBps: 50,
    });
    expect(q.outAmount).toBe(9_969_990n);
    expect(seen).toHaveLength(3);
  });

  it('is unavailable after its attempts when Jupiter keeps answering 5xx', async () => {
    handler = () => ({ status: 500, body: { error: 'Internal Server Error' } });
    const err = await failureOf(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    );
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect((err as Error).message).toMatch(/answered 500 \(3 attempts\)/);
    expect(seen).toHaveLength(3);
  });

  it('does not wait past its budget for a Retry-After', async () => {
    handler = () => ({ status: 429, body: { error: 'Too Many Requests' }, headers: { 'retry-after': '30' } });
    const started = Date.now();
    const err = await failureOf(
      aggregator({ timeoutMs: 1_000 }).quote({
        inputMint: USDC,
        outputMint: SOL,
        amount: 1n,
        slippageBps: 50,
      }),
    );
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('times out a Jupiter that does not answer: AggregatorUnavailable after the timeout', async () => {
    handler = () => 'hang';
    const started = Date.now();
    const err = await failureOf(
      aggregator({ timeoutMs: 300 }).quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    );
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect((err as Error).message).toMatch(/timed out after 300 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("answers NoRoute for Jupiter's no-route error, without retrying", async () => {
    handler = () => ({
      status: 400,
      body: { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' },
    });
    const err = await failureOf(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    );
    expect(err).toBeInstanceOf(NoRoute);
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect(seen).toHaveLength(1);
  });

  it('is unavailable, without retrying, on another 4xx (a refused API key)', async () => {
    handler = () => ({ status: 401, body: { error: 'Unauthorized' } });
    const err = await failureOf(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    );
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect(err).not.toBeInstanceOf(NoRoute);
    expect(seen).toHaveLength(1);
  });

  it('is unavailable when the answer is not JSON or not of the documented shape', async () => {
    handler = () => ({ status: 200, raw: '<html>gateway</html>' });
    await expect(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    ).rejects.toThrow(/not JSON/);
    handler = (req) => ({ status: 200, body: { ...quoteAnswer(req.query), outAmount: 9969990 } });
    await expect(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    ).rejects.toThrow(/outAmount is not a u64/);
    handler = (req) => ({ status: 200, body: { ...quoteAnswer(req.query), routePlan: [] } });
    await expect(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    ).rejects.toBeInstanceOf(AggregatorUnavailable);
  });

  it('is unavailable when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failureOf(
      new JupiterAggregator({ baseUrl: `http://127.0.0.1:${port}/swap/v1` }).quote({
        inputMint: USDC,
        outputMint: SOL,
        amount: 1n,
        slippageBps: 50,
      }),
    );
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect((err as Error).message).toMatch(/could not be reached/);
  });

  it('refuses a quote for other mints or another amount than asked', async () => {
    handler = (req) => ({ status: 200, body: { ...quoteAnswer(req.query), outputMint: stranger } });
    const err = await failureOf(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    );
    expect(err).toEqual(expect.objectContaining({ name: 'SwapRefused', reason: 'mint' }));
    handler = (req) => ({ status: 200, body: { ...quoteAnswer(req.query), inAmount: '5' } });
    const err2 = await failureOf(
      aggregator().quote({ inputMint: USDC, outputMint: SOL, amount: 1n, slippageBps: 50 }),
    );
    expect(err2).toEqual(expect.objectContaining({ name: 'SwapRefused', reason: 'amount' }));
  });
});

describe('Jupiter swaps', () => {
  it('posts the live quote as answered and returns the checked instructions, signable by the fee payer and the agent alone', async () => {
    const prepared = await aggregator().swap(swapRequest(9_900_000n), build);

    const post = posts()[0]!;
    expect(post.body).toEqual({
      userPublicKey: agent.address,
      payer: feePayer.address,
      quoteResponse: quoteAnswer(seen[0]!.query), // every field as Jupiter answered it
      wrapAndUnwrapSol: false,
      asLegacyTransaction: true,
      dynamicComputeUnitLimit: true,
    });
    expect(prepared.signers).toEqual([]);
    expect(prepared.lockKey).toBeUndefined();
    expect(prepared.quote.outAmount).toBe(9_969_990n);
    expect(prepared.instructions.map((ix) => ix.programAddress)).toEqual([
      'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
      COMPUTE_BUDGET,
      COMPUTE_BUDGET,
      ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      JUPITER_PROGRAM_ADDRESS,
    ]);
    expect(new TextDecoder().decode(prepared.instructions[0]!.data as Uint8Array)).toBe('intent:jup-1');
    // The message asks for exactly two signatures: the fee payer's and the agent's.
    const tx = signTransaction(prepared.instructions, feePayer, [agent], {
      blockhash: bs58.encode(new Uint8Array(32).fill(7)),
      lastValidBlockHeight: 100n,
    });
    expect(tx.transaction.messageBytes[0]).toBe(2);
    expect(Object.keys(tx.transaction.signatures)).toEqual([feePayer.address, agent.address]);
  });

  it('lowers the slippage it sends back so the on-chain minimum is at least the intent minimum', async () => {
    // 9,969,990 quoted; a minimum of 9,950,000 leaves room for 20 bps, not the 50 asked.
    const prepared = await aggregator().swap(swapRequest(9_950_000n), build);
    const sent = posts()[0]!.body!.quoteResponse as { slippageBps: number; otherAmountThreshold: string };
    expect(sent.slippageBps).toBe(20);
    expect(sent.otherAmountThreshold).toBe('9950051');
    expect(prepared.quote).toEqual(
      expect.objectContaining({ slippageBps: 20, otherAmountThreshold: 9_950_051n }),
    );
    // The on-chain minimum is counted rounded down (floor(9,969,990·9,950/10⁴) = 9,920,140): a minimum
    // equal to Jupiter's own threshold at 50 bps (9,920,141) is kept by sending 49 bps.
    seen = [];
    await aggregator().swap(swapRequest(9_920_141n), build);
    expect((posts()[0]!.body!.quoteResponse as { slippageBps: number }).slippageBps).toBe(49);
  });

  it('throws BelowMinimum when the live quote is under the minimum, and asks for no instructions', async () => {
    const err = await failureOf(aggregator().swap(swapRequest(9_969_991n), build));
    expect(err).toBeInstanceOf(BelowMinimum);
    expect(err).toEqual(expect.objectContaining({ expected: 9_969_991n, live: 9_969_990n }));
    expect(posts()).toHaveLength(0);
  });

  it('is unavailable when swap-instructions fails', async () => {
    const ok = jupiter();
    handler = (req) =>
      req.path.endsWith('/swap-instructions') ? { status: 502, body: { error: 'Bad Gateway' } } : ok(req);
    const err = await failureOf(aggregator().swap(swapRequest(1n), build));
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect(err).not.toBeInstanceOf(SwapRefused);
    expect(posts()).toHaveLength(3);
  });

  const swapAccount = (a: InstructionsAnswer, index: number, pubkey: string) => {
    a.swapInstruction.accounts[index] = { ...a.swapInstruction.accounts[index]!, pubkey };
  };
  const faults: [
    string,
    RefusalReason,
    (a: InstructionsAnswer, body: Record<string, unknown>) => void | Promise<void>,
  ][] = [
    [
      'a swap instruction of a foreign program',
      'program',
      (a) => void (a.swapInstruction.programId = stranger),
    ],
    [
      'a setup instruction of a foreign program (a system transfer)',
      'program',
      (a) =>
        void a.setupInstructions.push({
          programId: SYSTEM,
          accounts: [meta(feePayer.address, true, true), meta(stranger, false, true)],
          data: Buffer.from([2, 0, 0, 0, ...u64(1_000_000_000n)]).toString('base64'),
        }),
    ],
    ['another token program for the swap', 'program', (a) => swapAccount(a, 0, stranger)],
    ['another output mint in the swap', 'mint', (a) => swapAccount(a, 5, stranger)],
    [
      "a token account created for a mint that is not the swap's",
      'mint',
      (a) => {
        const accounts = a.setupInstructions[0]!.accounts;
        accounts[3] = meta(stranger);
      },
    ],
    ['another transfer authority (owner)', 'owner', (a) => swapAccount(a, 1, stranger)],
    [
      "the output paid to another wallet's token account",
      'owner',
      async (a) => swapAccount(a, 3, await ata(stranger, SOL)),
    ],
    [
      'a token account created for another owner',
      'owner',
      async (a) => {
        const accounts = a.setupInstructions[0]!.accounts;
        accounts[1] = meta(await ata(stranger, SOL), false, true);
        accounts[2] = meta(stranger);
      },
    ],
    [
      'an on-chain minimum below the intent minimum (a 50 % slippage in the instruction)',
      'threshold',
      (a) => void (a.swapInstruction.data = routeData(1_000_000n, 9_969_990n, 5_000)),
    ],
    [
      'a platform fee taken from the output',
      'threshold',
      (a) => void (a.swapInstruction.data = routeData(1_000_000n, 9_969_990n, 50, 20)),
    ],
    [
      'another input amount in the instruction',
      'amount',
      (a) => void (a.swapInstruction.data = routeData(2_000_000n, 9_969_990n, 50)),
    ],
    ['address lookup tables', 'lookup_tables', (a) => void (a.addressLookupTableAddresses = [stranger])],
    [
      'a token account paid by someone else than the fee payer',
      'signer',
      (a) => void (a.setupInstructions[0]!.accounts[0] = meta(stranger, true, true)),
    ],
    [
      'another signer on the swap',
      'signer',
      (a) => void a.swapInstruction.accounts.push(meta(stranger, true, true)),
    ],
    [
      'a tip instruction nobody asked for',
      'unexpected',
      (a) =>
        void a.otherInstructions.push({
          programId: SYSTEM,
          accounts: [meta(feePayer.address, true, true), meta(stranger, false, true)],
          data: '',
        }),
    ],
    [
      'a compute unit price above the cap',
      'unexpected',
      (a) =>
        void (a.computeBudgetInstructions[1]!.data = Buffer.from([3, ...u64(10n ** 12n)]).toString('base64')),
    ],
  ];

  it.each(faults)('refuses %s (%s), so nothing is signed', async (_name, reason, tweak) => {
    const base = jupiter();
    handler = async (req) => {
      const reply = await base(req);
      if (reply !== 'hang' && req.path.endsWith('/swap-instructions'))
        await tweak(reply.body as InstructionsAnswer, req.body!);
      return reply;
    };
    const err = await failureOf(aggregator().swap(swapRequest(9_920_141n), build));
    expect(err).toBeInstanceOf(SwapRefused);
    expect((err as SwapRefused).reason).toBe(reason);
  });

  it('accepts the shared-accounts route too, and checks its accounts', async () => {
    const shared = async (
      a: InstructionsAnswer,
      body: Record<string, unknown>,
      authority = agent.address,
    ) => {
      const q = body.quoteResponse as ReturnType<typeof quoteAnswer>;
      const data = Buffer.from(a.swapInstruction.data, 'base64');
      const tail = data.subarray(data.length - 19);
      a.swapInstruction = {
        programId: JUPITER_PROGRAM_ADDRESS,
        accounts: [
          meta(TOKEN_PROGRAM_ADDRESS),
          meta(generateSigner().address),
          meta(authority, true, false),
          meta(await ata(agent.address, USDC), false, true),
          meta(pool[0]!, false, true),
          meta(pool[1]!, false, true),
          meta(await ata(agent.address, SOL), false, true),
          meta(q.inputMint!),
          meta(q.outputMint!),
          meta(JUPITER_PROGRAM_ADDRESS),
          meta(JUPITER_PROGRAM_ADDRESS),
        ],
        data: Buffer.from([
          193,
          32,
          155,
          51,
          65,
          214,
          156,
          129,
          3,
          1,
          0,
          0,
          0,
          7,
          100,
          0,
          1,
          ...tail,
        ]).toString('base64'),
      } satisfies JupiterInstruction;
    };
    const base = jupiter();
    let authority = agent.address;
    handler = async (req) => {
      const reply = await base(req);
      if (reply !== 'hang' && req.path.endsWith('/swap-instructions'))
        await shared(reply.body as InstructionsAnswer, req.body!, authority);
      return reply;
    };
    const prepared = await aggregator().swap(swapRequest(9_920_141n), build);
    expect(prepared.instructions.at(-1)!.programAddress).toBe(JUPITER_PROGRAM_ADDRESS);
    authority = stranger;
    const err = await failureOf(aggregator().swap(swapRequest(9_920_141n), build));
    expect(err).toEqual(expect.objectContaining({ name: 'SwapRefused', reason: 'owner' }));
  });
});
