/**
 * The chain over Solana JSON-RPC: any cluster, or the local chain node. Calls go over HTTP through a
 * lean client (json-rpc.ts), to one node or several of the cluster (rpc-nodes.ts: reads from the
 * healthiest, transactions to every healthy one); subscriptions over the first node's WebSocket
 * through another client (pubsub.ts), which keeps that socket and its subscriptions alive (while it
 * is away, confirmations come from the batched status check, over HTTP from the healthy nodes).
 * Transactions are built and signed by the same code as the LiteSVM adapter and sent raw.
 * Confirmation subscribes to the signature over the node's WebSocket (confirmations.ts): it settles
 * when the node notifies it landed or failed; what is still in flight after a short bound is checked
 * in one batched getSignatureStatuses, and reported as expired once its blockhash expired (the block
 * height passed the transaction's last valid height): the caller may then check `status` and sign
 * anew, never resending a transaction that could still land.
 * Incoming payments are read from the node's history (getSignaturesForAddress, getTransaction at
 * `confirmed`), as payments.ts says.
 */
import type { Address, Instruction } from '@solana/kit';
import bs58 from 'bs58';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { tokenByMint, type Token } from '../domain/tokens';
import type { Signer } from './keys';
import { localFixtures, localTokens } from './local-fixtures';
import { inSpan } from '../tracing/spans';
import { gatherTurn } from '../batching/turn';
import { RpcError, type RpcCaller } from './json-rpc';
import { RpcNodes, type NodeReport, type RpcNodesOptions } from './rpc-nodes';
export { chainWasAway } from './json-rpc';
import {
  ChainFailure,
  SYSVAR_CLOCK_ADDRESS,
  type Chain,
  type ChainAccount,
  type LocalChain,
  type SignatureStatus,
  type TokenAccount,
} from './port';
import { Confirmations, type ConfirmationSource } from './confirmations';
import type { PrioritizationFee } from './compute-budget';
import { PubsubClient, pubsubUrlFor } from './pubsub';
import { ata, mintToInstructions, signTransaction, type SignedTransaction } from './transactions';
import {
  readIncomingPayments,
  type PaymentQuery,
  type PaymentSource,
  type TokenBalance,
  type TransactionHistoryReader,
} from './payments';

export interface RpcChainOptions {
  /** One node's URL, or several nodes of one cluster. */
  url: string | readonly string[];
  /** How the nodes are judged: the timeout of a call, the slots one may lag. */
  rpc?: RpcNodesOptions;
  tokens: readonly Token[];
  /** Pays transaction fees and token-account rent. */
  payer: Signer;
  treasury: string;
  /** Local chain only: the mint authority, to pay addresses as an outside party. */
  mintAuthority?: Signer;
  /** Local chain only: the mints that authority mints (by default every token of `tokens`). */
  mintable?: readonly string[];
  /** The node's WebSocket; by default Solana's convention: the RPC URL with ws(s)://, its port (if any) + 1. */
  wsUrl?: string;
  /** How long a confirmation waits for its notification before the batched status check takes it up, and how often that check runs (ms). */
  sweepMs?: number;
}

/** Confirmation: the WebSocket's signature subscriptions (pubsub.ts), batched statuses over HTTP. */
export function confirmationSource(socket: PubsubClient, rpc: RpcCaller): ConfirmationSource {
  return {
    subscribe: (signature, settled) => socket.signature(signature, settled),
    statuses: (signatures) => signatureStatuses(rpc, signatures),
    blockHeight: () => rpc.call<number>('getBlockHeight', [{ commitment: 'confirmed' }]),
  };
}

interface StatusJson {
  err: unknown;
  confirmationStatus: string | null;
}

async function signatureStatuses(rpc: RpcCaller, signatures: readonly string[]): Promise<SignatureStatus[]> {
  const { value } = await rpc.call<{ value: (StatusJson | null)[] }>('getSignatureStatuses', [
    [...signatures],
    { searchTransactionHistory: true },
  ]);
  return signatures.map((_, i) => {
    const s = value[i];
    if (!s) return 'unknown';
    if (s.err) return 'failed';
    return s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized'
      ? 'confirmed'
      : 'unknown';
  });
}

export class RpcChain implements LocalChain, PaymentSource {
  readonly tokens: readonly Token[];
  readonly treasury: string;
  /** HTTP calls, to the nodes. */
  private readonly rpc: RpcNodes;
  /** The first node's URL: its WebSocket, and the local chain node's own methods. */
  private readonly firstUrl: string;
  /** The node's WebSocket: signature and account subscriptions. */
  private readonly socket: PubsubClient;
  /** Token accounts known to exist (they are never closed here), and those a pending transfer creates. */
  private readonly existing = new Set<string>();
  private readonly creates = new Map<string, readonly string[]>();
  private readonly confirmations: Confirmations;

  constructor(private readonly options: RpcChainOptions) {
    // A node that does not answer is DependencyUnavailable (503 at the edge; an executor's job retries).
    const urls = typeof options.url === 'string' ? [options.url] : options.url;
    this.rpc = new RpcNodes(urls, options.rpc);
    this.firstUrl = urls[0]!;
    this.socket = new PubsubClient(options.wsUrl ?? pubsubUrlFor(this.firstUrl));
    this.confirmations = new Confirmations(confirmationSource(this.socket, this.rpc), options.sweepMs);
    this.tokens = options.tokens;
    this.treasury = options.treasury;
  }

  /**
   * A client of the local chain node, with the fixtures derived from the node's seed. The node serves
   * its WebSocket on its RPC port (rpc-node.ts), where this client looks for it.
   */
  static local(url: string | readonly string[], seed?: string, rpc?: RpcNodesOptions): RpcChain {
    const f = localFixtures(seed);
    const first = typeof url === 'string' ? url : url[0]!;
    return new RpcChain({
      url,
      ...(rpc && { rpc }),
      wsUrl: first.replace(/^http/, 'ws'),
      tokens: localTokens(f),
      payer: f.payer,
      treasury: f.treasury.address,
      mintAuthority: f.authority,
      mintable: f.mints.map((m) => m.mint),
    });
  }

  /** The accounts at these addresses (null where none), as the node has them at `confirmed`. */
  private async accounts(addresses: readonly string[]): Promise<(ChainAccount | null)[]> {
    const { value } = await this.rpc.call<{ value: (AccountJson | null)[] }>('getMultipleAccounts', [
      addresses,
      { encoding: 'base64', commitment: 'confirmed' },
    ]);
    return value.map((a) =>
      a
        ? {
            owner: a.owner,
            lamports: BigInt(a.lamports),
            data: new Uint8Array(Buffer.from(a.data[0], 'base64')),
          }
        : null,
    );
  }

  /**
   * One account, asked with the others asked in the same turn (at most 100 a call, the node's limit):
   * an executor checks the funds of each job it starts, and under load starts several in a turn.
   */
  private readonly account = gatherTurn(async (addresses: string[]) => {
    const chunks = [];
    for (let i = 0; i < addresses.length; i += ACCOUNTS_A_CALL)
      chunks.push(this.accounts(addresses.slice(i, i + ACCOUNTS_A_CALL)));
    return (await Promise.all(chunks)).flat();
  });

  async tokenAccount(owner: string, mint: string): Promise<TokenAccount> {
    const address = await ata(owner, mint);
    const info = await this.account(address);
    return info
      ? { address, exists: true, amount: tokenAmount(info) }
      : { address, exists: false, amount: 0n };
  }

  async balances(owner: string): Promise<Map<string, bigint>> {
    const infos = await this.accounts(await Promise.all(this.tokens.map((t) => ata(owner, t.mint))));
    return new Map(this.tokens.map((t, i) => [t.mint, infos[i] ? tokenAmount(infos[i]!) : 0n]));
  }

  get feePayer(): string {
    return this.options.payer.address;
  }

  // Known only from what this client saw land: asking the node each time would cost a round trip.
  async accountKnown(address: string): Promise<boolean> {
    return this.existing.has(address);
  }

  async latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: bigint }> {
    const hash = await this.blockhash();
    return { blockhash: hash.blockhash, lastValidBlockHeight: BigInt(hash.lastValidBlockHeight) };
  }

  async prepare(
    instructions: readonly Instruction[],
    signers: readonly Signer[],
  ): Promise<SignedTransaction> {
    const hash = await this.blockhash();
    const tx = signTransaction(instructions, this.options.payer, signers, {
      blockhash: hash.blockhash,
      lastValidBlockHeight: BigInt(hash.lastValidBlockHeight),
    });
    // The token accounts it creates exist once it lands.
    const created = instructions
      .filter((ix) => ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS)
      .map((ix) => ix.accounts?.[1]?.address)
      .filter((a): a is Address => a !== undefined);
    if (created.length > 0) this.creates.set(tx.signature, created);
    return tx;
  }

  /**
   * The latest blockhash, asked once a second at most: a blockhash stays valid for 150 blocks (about a
   * minute), and every transfer asking for its own would double the calls to the node.
   */
  private recentHash:
    { at: number; value: Promise<{ blockhash: string; lastValidBlockHeight: number }> } | undefined;
  private blockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
    const now = Date.now();
    if (!this.recentHash || now - this.recentHash.at > 1_000) {
      const value = this.askLatestBlockhash();
      this.recentHash = { at: now, value };
      value.catch(() => (this.recentHash = undefined));
    }
    return this.recentHash.value;
  }

  private async askLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
    const { value } = await this.rpc.call<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
      'getLatestBlockhash',
      [{ commitment: 'confirmed' }],
    );
    return value;
  }

  async recentPrioritizationFees(accounts: readonly string[]): Promise<PrioritizationFee[]> {
    const fees = await this.rpc.call<{ slot: number; prioritizationFee: number }[]>(
      'getRecentPrioritizationFees',
      [[...accounts]],
    );
    return fees.map((f) => ({ slot: BigInt(f.slot), fee: BigInt(f.prioritizationFee) }));
  }

  /** A simulated transaction is a trial (compute-budget.ts signs another to send): what it would create is forgotten. */
  async unitsConsumed(tx: SignedTransaction): Promise<bigint | undefined> {
    this.creates.delete(tx.signature);
    try {
      const { value } = await this.rpc.call<{ value: { err: unknown; unitsConsumed?: number } }>(
        'simulateTransaction',
        [
          Buffer.from(tx.wire).toString('base64'),
          { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: true, commitment: 'confirmed' },
        ],
      );
      return value.err === null && value.unitsConsumed ? BigInt(value.unitsConsumed) : undefined;
    } catch (err) {
      if (err instanceof RpcError) return undefined; // a node without simulation: the limit falls back
      throw err;
    }
  }

  async submit(tx: SignedTransaction): Promise<void> {
    // Watched before it is sent, so its notification cannot come before the subscription.
    const confirmation = this.confirmations.watch(tx.signature, tx.lastValidBlockHeight);
    try {
      await inSpan('chain.send', () =>
        this.rpc.send('sendTransaction', [
          Buffer.from(tx.wire).toString('base64'),
          { encoding: 'base64', skipPreflight: false, preflightCommitment: 'confirmed', maxRetries: 0 },
        ]),
      );
    } catch (err) {
      confirmation.cancel();
      // A transaction the node refused: its preflight failed (-32002, with the logs), or it was refused
      // outright (a blockhash it does not know, a signature that does not verify).
      if (err instanceof RpcError) {
        const logs = (err.data as { logs?: string[] | null } | undefined)?.logs ?? [];
        // The node moved past the blockhash we keep: the next transaction asks for a new one.
        if (/BlockhashNotFound/.test(err.message)) this.recentHash = undefined;
        throw new ChainFailure(err.message, logs);
      }
      throw err;
    }
    await inSpan('chain.confirm', () => confirmation.done);
    for (const account of this.creates.get(tx.signature) ?? []) this.existing.add(account);
    this.creates.delete(tx.signature);
  }

  async status(signature: string): Promise<SignatureStatus> {
    return (await signatureStatuses(this.rpc, [signature]))[0]!;
  }

  mintable(mint: string): boolean {
    return (
      this.options.mintAuthority !== undefined &&
      tokenByMint(this.tokens, mint) !== undefined &&
      (this.options.mintable?.includes(mint) ?? true)
    );
  }

  async mintTo(owner: string, mint: string, amount: bigint, reference: string): Promise<string> {
    const authority = this.options.mintAuthority;
    const token = tokenByMint(this.tokens, mint);
    if (!authority || !token || !this.mintable(mint))
      throw new ChainFailure('minting needs the local chain and one of the tokens it mints');
    const hash = await this.askLatestBlockhash();
    const tx = signTransaction(
      await mintToInstructions(this.options.payer, authority, owner, mint, token.decimals, amount, reference),
      this.options.payer,
      [authority],
      {
        blockhash: hash.blockhash,
        lastValidBlockHeight: BigInt(hash.lastValidBlockHeight),
      },
    );
    await this.submit(tx);
    return tx.signature;
  }

  async fund(address: string, lamports: bigint): Promise<void> {
    await this.rpc.call('requestAirdrop', [address, Number(lamports)]);
  }

  async clock(): Promise<bigint> {
    const clock = await this.readAccount(SYSVAR_CLOCK_ADDRESS);
    if (!clock || clock.data.length < 40) throw new Error('the chain answered no Clock sysvar');
    // slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64
    return Buffer.from(clock.data).readBigInt64LE(32);
  }

  async readAccount(address: string): Promise<ChainAccount | undefined> {
    const [info] = await this.accounts([address]);
    return info ?? undefined;
  }

  async incomingPayments(owner: string, mints: readonly string[], query?: PaymentQuery) {
    return readIncomingPayments(this.history, owner, mints, query);
  }

  /** Over the WebSocket: logsSubscribe with `mentions` (subscribed again after a reconnect). */
  watchAccount(address: string, touched: (signature: string) => void): () => void {
    return this.socket.logs(address, touched);
  }

  /** The node's history (getSignaturesForAddress, getTransaction), which reconciliation reads. */
  transactionHistory(): TransactionHistoryReader {
    return this.history;
  }

  private readonly history: TransactionHistoryReader = {
    signaturesFor: async (address, options) =>
      (
        await this.rpc.call<{ signature: string; err: unknown }[]>('getSignaturesForAddress', [
          address,
          { commitment: 'confirmed', ...options },
        ])
      ).map((s) => ({ signature: s.signature, failed: s.err !== null })),
    transaction: async (signature) => {
      const tx = await this.rpc.call<TransactionJson | null>('getTransaction', [
        signature,
        { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 },
      ]);
      if (!tx?.meta) return undefined;
      const { message } = tx.transaction;
      const balances = (list: TokenBalanceJson[] | null | undefined): TokenBalance[] =>
        (list ?? []).map((b) => ({
          accountIndex: b.accountIndex,
          mint: b.mint,
          owner: b.owner ?? '',
          amount: BigInt(b.uiTokenAmount.amount),
          decimals: b.uiTokenAmount.decimals,
        }));
      return {
        signature,
        signatures: tx.transaction.signatures,
        slot: BigInt(tx.slot),
        failed: tx.meta.err !== null,
        // Static keys, then those loaded from lookup tables: writable, then read-only.
        accountKeys: [
          ...message.accountKeys,
          ...(tx.meta.loadedAddresses?.writable ?? []),
          ...(tx.meta.loadedAddresses?.readonly ?? []),
        ],
        numRequiredSignatures: message.header.numRequiredSignatures,
        instructions: message.instructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accounts,
          data: bs58.decode(ix.data),
        })),
        preTokenBalances: balances(tx.meta.preTokenBalances),
        postTokenBalances: balances(tx.meta.postTokenBalances),
      };
    },
  };

  /**
   * Readiness: each node not set aside answers `getHealth` with "ok" within `timeoutMs` (a node that
   * is down, hangs, or says it is behind the cluster is set aside); ready while one is healthy.
   * Resolves with every node's report (by host and port), else throws with it.
   */
  health(timeoutMs: number): Promise<NodeReport[]> {
    return this.rpc.health(timeoutMs);
  }

  /** The nodes, as the metrics report them. */
  get nodes(): RpcNodes {
    return this.rpc;
  }

  async blockHeight(): Promise<bigint> {
    return BigInt(await this.rpc.call<number>('getBlockHeight', [{ commitment: 'confirmed' }]));
  }

  /** Local chain node only (`tokenops_warpClock`, not a Solana method): moves its clock forward. */
  async warp(seconds: bigint): Promise<bigint> {
    return BigInt(await this.localCall('tokenops_warpClock', [seconds.toString()], 'move its clock'));
  }

  /** Local chain node only (`tokenops_passSlots`, not a Solana method): passes slots at once. */
  async passSlots(count: number): Promise<bigint> {
    return BigInt(await this.localCall('tokenops_passSlots', [count], 'pass slots'));
  }

  private async localCall(method: string, params: unknown[], what: string): Promise<string> {
    const response = await fetch(this.firstUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: string; error?: { message: string } };
    if (body.error || body.result === undefined)
      throw new Error(`the chain did not ${what}: ${body.error?.message ?? response.status}`);
    return body.result;
  }

  /** Stops watching what is in flight and closes the WebSocket. */
  async close(): Promise<void> {
    this.confirmations.close();
    await this.rpc.close();
    this.socket.close();
  }
}

/** An account in a getMultipleAccounts answer (base64 encoding). */
interface AccountJson {
  owner: string;
  lamports: number;
  data: [string, 'base64'];
}

/** The most accounts a node answers in one `getMultipleAccounts` (Solana's limit). */
const ACCOUNTS_A_CALL = 100;

/** An SPL token account's amount: a u64 at byte 64. */
const tokenAmount = (account: ChainAccount): bigint => Buffer.from(account.data).readBigUInt64LE(64);

interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

/** getTransaction's answer in the json encoding: the fields read here. */
interface TransactionJson {
  slot: number;
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: { numRequiredSignatures: number };
      instructions: { programIdIndex: number; accounts: number[]; data: string }[];
    };
  };
  meta: {
    err: unknown;
    loadedAddresses?: { writable: string[]; readonly: string[] };
    preTokenBalances?: TokenBalanceJson[] | null;
    postTokenBalances?: TokenBalanceJson[] | null;
  } | null;
}

export type { Chain };
