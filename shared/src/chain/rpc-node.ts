/**
 * A Solana JSON-RPC node over the LiteSVM chain: the methods the RPC chain adapter uses, answered in
 * the shapes Solana's RPC answers them, so processes of the server topology can share one local
 * chain (`npm run start:chain`) the way they would share a real cluster.
 *
 * Slots advance on a timer; a blockhash stays valid for 150 slots (LiteSVM keeps one blockhash, which
 * never expires here). Failed transactions answer as a failed preflight: error -32002 with the logs.
 */
import { getTransactionDecoder } from '@solana/kit';
import bs58 from 'bs58';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChainNodeBackend } from './litesvm';
import { ChainFailure } from './port';
import { answerOps, type OpsOptions } from '../process/ops';

const decoder = getTransactionDecoder();
const MAX_BODY = 1024 * 1024;

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
  close(): Promise<void>;
}

export async function serveChainRpc(
  backend: ChainNodeBackend,
  options: { port?: number; host?: string; slotMs?: number; ops?: OpsOptions } = {},
): Promise<ChainNode> {
  const context = () => ({ slot: Number(backend.slot()), apiVersion: '2.2.0' });
  const methods: Record<string, (params: unknown[]) => Promise<unknown> | unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0-litesvm', 'feature-set': 0 }),
    getSlot: () => Number(backend.slot()),
    getBlockHeight: () => Number(backend.slot()),
    getLatestBlockhash: () => ({
      context: context(),
      value: { blockhash: backend.blockhash(), lastValidBlockHeight: Number(backend.slot()) + 150 },
    }),
    isBlockhashValid: ([hash]) => ({ context: context(), value: hash === backend.blockhash() }),
    getMinimumBalanceForRentExemption: ([space]) => Number(backend.rentExemption(BigInt(space as number))),
    getBalance: ([address]) => ({
      context: context(),
      value: Number(backend.account(address as string)?.lamports ?? 0n),
    }),
    getAccountInfo: ([address]) => ({ context: context(), value: accountJson(backend, address as string) }),
    getMultipleAccounts: ([addresses]) => ({
      context: context(),
      value: (addresses as string[]).map((a) => accountJson(backend, a)),
    }),
    sendTransaction: async ([encoded, config]) => {
      const encoding = (config as { encoding?: string } | undefined)?.encoding ?? 'base58';
      if (encoding !== 'base64') throw new RpcError(-32602, 'only base64 encoded transactions are accepted');
      let transaction;
      try {
        transaction = decoder.decode(Buffer.from(encoded as string, 'base64'));
      } catch {
        throw new RpcError(-32602, 'failed to deserialize the transaction');
      }
      try {
        await backend.send(transaction);
      } catch (err) {
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
      return bs58.encode(Object.values(transaction.signatures)[0]!);
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
    requestAirdrop: async ([address, lamports]) => {
      await backend.airdrop(address as string, BigInt(lamports as number));
      return '1111111111111111111111111111111111111111111111111111111111111111';
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
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', async () => {
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
  const slots = setInterval(() => backend.advanceSlot(), options.slotMs ?? 400);
  slots.unref();
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 8899, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: async () => {
      clearInterval(slots);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function accountJson(backend: ChainNodeBackend, address: string) {
  const account = backend.account(address);
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
