/**
 * A Solana JSON-RPC node over the LiteSVM chain: the methods the RPC chain adapter uses, answered in
 * the shapes Solana's RPC answers them, so processes of the server topology can share one local
 * chain (`npm run start:chain`) the way they would share a real cluster.
 *
 * Slots pass on a timer (`slotMs`), each with a new blockhash valid for 150 slots (litesvm.ts); a
 * transaction on another blockhash is refused as BlockhashNotFound. Failed transactions answer as a failed preflight: error -32002 with the logs.
 *
 * getRecentPrioritizationFees answers from what the chain executed (prioritization-fees.ts).
 *
 * getSignaturesForAddress and getTransaction (JSON encoding) answer from the chain's transaction
 * history (history.ts), when it keeps one: the newest transactions, kept across a restart. Token
 * balances carry `uiAmountString` and a null `uiAmount` (deprecated, a float); inner instructions and
 * logs are not recorded (null, as a node that does not record them answers); lookup tables are not
 * resolved (`loadedAddresses` is empty: the service sends legacy transactions).
 *
 * Its WebSocket (rpc-pubsub.ts: signature and logs subscriptions) answers on the same port
 * (the URL with ws://, as a provider behind a proxy serves it) and, with `wsPort`, on that port too:
 * a validator serves it on the RPC port + 1, where web3.js looks by default.
 */
import { getTransactionDecoder, type EncodedAccount, type Transaction } from '@solana/kit';
import bs58 from 'bs58';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChainNodeBackend } from './litesvm';
import { signaturesOf, type LandedTransaction } from './history';
import { readMessage } from './message';
import type { TokenBalance } from './payments';
import { ChainFailure } from './port';
import { isAddress } from '../domain/tokens';
import { amountText, fromBaseUnits } from '../money';
import { answerOps, type OpsOptions } from '../process/ops';
import { signaturePubsub } from './rpc-pubsub';
import { TOKEN_PROGRAMS } from './token-programs';
import { MAX_FEE_ACCOUNTS } from './prioritization-fees';

const decoder = getTransactionDecoder();
/**
 * The largest request body the node reads. Larger than a public node's (Solana's is 50 KiB), as this
 * node also answers the tests' books: one getMultipleAccounts over every holder the shared topology's
 * suites have made (17,000 addresses, 800 KB, by the console's scale test and the audit query's), read
 * in one call so that the books are one snapshot. Past it the answer is 413 with a JSON-RPC error.
 */
const MAX_BODY = 16 * 1024 * 1024;

interface RpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface ChainNode {
  url: string;
  /** The WebSocket (signature subscriptions), on the RPC port. */
  wsUrl: string;
  close(): Promise<void>;
}

const latestBlockhashJson = (backend: ChainNodeBackend) => {
  const { blockhash, lastValidBlockHeight } = backend.latestBlockhash();
  return { blockhash, lastValidBlockHeight: Number(lastValidBlockHeight) };
};

export async function serveChainRpc(
  backend: ChainNodeBackend,
  options: { port?: number; wsPort?: number; host?: string; slotMs?: number; ops?: OpsOptions } = {},
): Promise<ChainNode> {
  const pubsub = signaturePubsub(backend);
  const context = () => ({ slot: Number(backend.slot()), apiVersion: '2.2.0' });
  const history = () => {
    if (!backend.history) throw new RpcError(-32011, 'Transaction history is not available from this node');
    return backend.history;
  };
  const config = (value: unknown): Record<string, unknown> =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const signatureParam = (value: unknown, name: string): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(value))
      throw new RpcError(-32602, `Invalid param: ${name} is not a base58 signature`);
    return value;
  };
  const methods: Record<string, (params: unknown[]) => Promise<unknown> | unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0-litesvm', 'feature-set': 0 }),
    getSlot: () => Number(backend.slot()),
    getBlockHeight: () => Number(backend.slot()),
    getLatestBlockhash: () => ({ context: context(), value: latestBlockhashJson(backend) }),
    isBlockhashValid: ([hash]) => ({
      context: context(),
      value: typeof hash === 'string' && backend.isBlockhashValid(hash),
    }),
    getMinimumBalanceForRentExemption: ([space]) => Number(backend.rentExemption(BigInt(space as number))),
    getBalance: ([address]) => ({
      context: context(),
      value: Number(backend.account(address as string)?.lamports ?? 0n),
    }),
    getAccountInfo: ([address]) => ({ context: context(), value: accountJson(backend, address as string) }),
    getTokenAccountBalance: ([address]) => ({
      context: context(),
      value: tokenAmountJson(backend, address),
    }),
    getMultipleAccounts: ([addresses]) => ({
      context: context(),
      value: (addresses as string[]).map((a) => accountJson(backend, a)),
    }),
    sendTransaction: async ([encoded, options]) => {
      const transaction = decodeTransaction(encoded, config(options).encoding);
      const signature = bs58.encode(Object.values(transaction.signatures)[0] ?? new Uint8Array(64));
      // The accounts it touches, for those who watch accounts (logsSubscribe).
      const accounts = pubsub.watchingAccounts
        ? readMessage(new Uint8Array(transaction.messageBytes)).accountKeys
        : undefined;
      try {
        await backend.send(transaction);
        void pubsub.processed(signature, accounts);
      } catch (err) {
        void pubsub.processed(signature, accounts); // a transaction that ran and failed is processed too
        if (err instanceof ChainFailure) {
          throw new RpcError(-32002, `Transaction simulation failed: ${err.error}`, {
            err: err.error,
            logs: err.logs,
            accounts: null,
            unitsConsumed: 0,
          });
        }
        throw err;
      }
      return signature;
    },
    simulateTransaction: ([encoded, options]) => {
      const c = config(options);
      const transaction = decodeTransaction(encoded, c.encoding);
      const sigVerify = c.sigVerify === true;
      const replaceBlockhash = c.replaceRecentBlockhash === true;
      if (sigVerify && replaceBlockhash)
        throw new RpcError(-32602, 'sigVerify may not be used with replaceRecentBlockhash');
      const wanted = config(c.accounts);
      const addresses = wanted.addresses ?? (c.accounts === undefined ? undefined : []);
      if (addresses !== undefined) {
        if (!Array.isArray(addresses) || !addresses.every((a) => typeof a === 'string' && isAddress(a)))
          throw new RpcError(-32602, 'Invalid param: accounts.addresses must be base58 addresses');
        const encoding = wanted.encoding ?? 'base64';
        if (encoding !== 'base64')
          throw new RpcError(
            -32602,
            `Invalid params: this node answers accounts in the base64 encoding only, not ${String(encoding)}`,
          );
      }
      const result = backend.simulate(transaction as unknown as Transaction, { sigVerify, replaceBlockhash });
      return {
        context: context(),
        value: {
          err: result.err,
          logs: result.logs,
          accounts:
            addresses === undefined
              ? null
              : (addresses as string[]).map((a) =>
                  result.err === null
                    ? encodedAccountJson(result.accounts.get(a) ?? backend.account(a))
                    : null,
                ),
          unitsConsumed: Number(result.unitsConsumed),
          returnData: result.returnData && {
            programId: result.returnData.programId,
            data: [Buffer.from(result.returnData.data).toString('base64'), 'base64'],
          },
          innerInstructions: null,
          ...(replaceBlockhash && {
            replacementBlockhash: latestBlockhashJson(backend),
          }),
        },
      };
    },
    getRecentPrioritizationFees: ([addresses]) => {
      const accounts = addresses ?? [];
      if (!Array.isArray(accounts) || !accounts.every((a) => typeof a === 'string' && isAddress(a)))
        throw new RpcError(-32602, 'Invalid param: the accounts must be base58 addresses');
      if (accounts.length > MAX_FEE_ACCOUNTS)
        throw new RpcError(-32602, `Too many inputs provided; max ${MAX_FEE_ACCOUNTS}`);
      return backend
        .prioritizationFees(accounts as string[])
        .map((f) => ({ slot: Number(f.slot), prioritizationFee: Number(f.fee) }));
    },
    getGenesisHash: () => backend.genesisHash(),
    getEpochInfo: () => {
      const { epoch, slotIndex, slotsInEpoch, transactionCount } = backend.epochInfo();
      return {
        absoluteSlot: Number(backend.slot()),
        blockHeight: Number(backend.slot()),
        epoch: Number(epoch),
        slotIndex: Number(slotIndex),
        slotsInEpoch: Number(slotsInEpoch),
        transactionCount,
      };
    },
    getSignatureStatuses: async ([signatures]) => ({
      context: context(),
      value: await Promise.all(
        (signatures as string[]).map(async (sig) => {
          const status = await backend.status(sig);
          if (status === 'unknown') return null;
          const err = status === 'failed' ? { InstructionError: [0, 'Failed'] } : null;
          return {
            slot: Number(backend.slot()),
            confirmations: null,
            err,
            status: err ? { Err: err } : { Ok: null },
            confirmationStatus: 'finalized',
          };
        }),
      ),
    }),
    getSignaturesForAddress: ([address, options]) => {
      if (typeof address !== 'string' || !isAddress(address))
        throw new RpcError(-32602, 'Invalid param: Invalid');
      const c = config(options);
      const limit = c.limit ?? 1_000;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1_000)
        throw new RpcError(-32602, 'Invalid limit; max 1000');
      const before = signatureParam(c.before, 'before');
      const until = signatureParam(c.until, 'until');
      return history()
        .signaturesFor(address, { limit, ...(before && { before }), ...(until && { until }) })
        .map((tx) => ({
          signature: tx.signature,
          slot: tx.slot,
          err: tx.err,
          memo: null,
          blockTime: tx.blockTime,
          confirmationStatus: 'finalized',
        }));
    },
    getTransaction: ([signature, options]) => {
      const sig = signatureParam(signature, 'signature');
      if (!sig) throw new RpcError(-32602, 'Invalid param: signature is required');
      const c = typeof options === 'string' ? { encoding: options } : config(options);
      const encoding = c.encoding ?? 'json';
      if (encoding !== 'json')
        throw new RpcError(
          -32602,
          `Invalid params: this node answers the json encoding only, not ${String(encoding)}`,
        );
      const tx = history().get(sig);
      return tx ? transactionJson(tx, c.maxSupportedTransactionVersion) : null;
    },
    // Not a Solana method: the local chain's clock moves only when asked (LocalChain.warp).
    tokenops_warpClock: async ([seconds]) => {
      let by: bigint;
      try {
        by = BigInt(seconds as string);
      } catch {
        throw new RpcError(-32602, 'seconds: a whole number as text');
      }
      if (by < 0n) throw new RpcError(-32602, 'the clock only moves forward');
      return (await backend.warp(by)).toString();
    },
    // Not a Solana method: slots pass at once (LocalChain.passSlots), so a test can outlive a blockhash.
    tokenops_passSlots: async ([count]) => {
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1 || count > 1_000_000)
        throw new RpcError(-32602, 'count: a whole number of slots, 1 to 1,000,000');
      return (await backend.passSlots(count)).toString();
    },
    requestAirdrop: async ([address, lamports]) => {
      if (typeof address !== 'string' || !isAddress(address))
        throw new RpcError(-32602, 'Invalid param: Invalid');
      if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports <= 0)
        throw new RpcError(-32602, 'Invalid param: lamports must be a positive whole number');
      const signature = await backend.airdrop(address, BigInt(lamports));
      void pubsub.processed(signature, pubsub.watchingAccounts ? [address] : undefined);
      return signature;
    },
  };

  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && options.ops) {
      void answerOps(req, res, options.ops).then((answered) => {
        if (!answered) res.writeHead(404).end();
      });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size <= MAX_BODY) return void chunks.push(chunk);
      // Said, not a reset connection (a client sees "fetch failed: ECONNRESET" and no reason): the rest
      // of the body is read and dropped, then the answer is sent.
      tooLarge = true;
      chunks.length = 0;
    });
    req.on('end', async () => {
      if (tooLarge) {
        const error = { code: -32600, message: `Request body over ${MAX_BODY} bytes` };
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error }));
      }
      let request: RpcRequest | undefined;
      let body: unknown;
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest;
        const method = methods[request.method];
        if (!method) throw new RpcError(-32601, `Method not found: ${request.method}`);
        body = { jsonrpc: '2.0', id: request.id, result: await method(request.params ?? []) };
      } catch (err) {
        const e =
          err instanceof RpcError
            ? err
            : new RpcError(-32603, err instanceof SyntaxError ? 'Parse error' : 'Internal error');
        body = {
          jsonrpc: '2.0',
          id: request?.id ?? null,
          error: { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) },
        };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
    });
  });
  // Longer than a client's idle timeout (undici's is 4 s), so that a client, not the node, closes an
  // idle connection: at Node's default (5 s) a request sent on a connection the node was closing at
  // that moment failed with "other side closed" (seen on a busy machine).
  server.keepAliveTimeout = 65_000;
  server.on('upgrade', pubsub.upgrade);
  const host = options.host ?? '127.0.0.1';
  const pubsubServer =
    options.wsPort === undefined ? undefined : createServer((_req, res) => res.writeHead(426).end());
  pubsubServer?.on('upgrade', pubsub.upgrade);
  const slots =
    options.slotMs === undefined ? undefined : setInterval(() => backend.advanceSlot(), options.slotMs);
  slots?.unref();
  await new Promise<void>((resolve) => server.listen(options.port ?? 8899, host, resolve));
  if (pubsubServer) await new Promise<void>((resolve) => pubsubServer.listen(options.wsPort, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}`,
    close: async () => {
      clearInterval(slots);
      pubsub.close();
      for (const s of [server, pubsubServer]) {
        if (!s) continue;
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}

const tokenBalanceJson = (b: TokenBalance) => ({
  accountIndex: b.accountIndex,
  mint: b.mint,
  owner: b.owner,
  uiTokenAmount: {
    amount: String(b.amount),
    decimals: b.decimals,
    uiAmount: null,
    uiAmountString: amountText(fromBaseUnits(b.amount, b.decimals)),
  },
});

/** getTransaction's answer in the JSON encoding. */
function transactionJson(tx: LandedTransaction, maxVersion: unknown) {
  const message = readMessage(tx.message);
  if (message.version !== 'legacy' && (typeof maxVersion !== 'number' || maxVersion < message.version)) {
    throw new RpcError(
      -32015,
      `Transaction version (${message.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${message.version}`,
    );
  }
  return {
    slot: tx.slot,
    blockTime: tx.blockTime,
    ...(maxVersion !== undefined && { version: message.version }),
    transaction: {
      signatures: signaturesOf(tx),
      message: {
        accountKeys: message.accountKeys,
        header: message.header,
        recentBlockhash: message.recentBlockhash,
        instructions: message.instructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accounts,
          data: bs58.encode(ix.data),
          stackHeight: null,
        })),
        ...(message.version !== 'legacy' && { addressTableLookups: message.addressTableLookups }),
      },
    },
    meta: {
      err: tx.err,
      status: tx.err === null ? { Ok: null } : { Err: tx.err },
      fee: tx.fee,
      preBalances: tx.preBalances,
      postBalances: tx.postBalances,
      innerInstructions: null,
      logMessages: null,
      preTokenBalances: tx.preTokenBalances.map(tokenBalanceJson),
      postTokenBalances: tx.postTokenBalances.map(tokenBalanceJson),
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
    },
  };
}

/** A transaction from its wire bytes, as sendTransaction and simulateTransaction take it (base58 unless told). */
function decodeTransaction(encoded: unknown, encoding: unknown = 'base58') {
  if (typeof encoded !== 'string')
    throw new RpcError(-32602, 'Invalid params: the transaction must be a string');
  if (encoding !== 'base64' && encoding !== 'base58')
    throw new RpcError(-32602, `Invalid params: unknown encoding ${String(encoding)}`);
  try {
    return decoder.decode(encoding === 'base64' ? Buffer.from(encoded, 'base64') : bs58.decode(encoded));
  } catch {
    throw new RpcError(-32602, 'failed to deserialize the transaction');
  }
}

/** getTokenAccountBalance's value: a token account's amount with its mint's decimals (x402's facilitator reads it). */
function tokenAmountJson(backend: ChainNodeBackend, address: unknown) {
  const account = typeof address === 'string' && isAddress(address) ? backend.account(address) : null;
  if (!account || !TOKEN_PROGRAMS.has(account.programAddress) || account.data.length < 72)
    throw new RpcError(-32602, 'Invalid param: not a Token account');
  const data = Buffer.from(account.data);
  const mint = backend.account(bs58.encode(data.subarray(0, 32)));
  const decimals = mint && mint.data.length > 44 ? mint.data[44]! : 0;
  const amount = data.readBigUInt64LE(64);
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: null,
    uiAmountString: amountText(fromBaseUnits(amount, decimals)),
  };
}

function accountJson(backend: ChainNodeBackend, address: string) {
  return encodedAccountJson(backend.account(address));
}

function encodedAccountJson(account: EncodedAccount | null) {
  if (!account) return null;
  return {
    data: [Buffer.from(account.data).toString('base64'), 'base64'],
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.programAddress,
    rentEpoch: 0,
    space: Number(account.space),
  };
}
