/**
 * The chain over Solana JSON-RPC (`@solana/web3.js` Connection): any cluster, or the local chain node.
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
import { Connection, PublicKey, SendTransactionError } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { Token } from '../domain/tokens';
import type { Signer } from './keys';
import { localFixtures, localTokens } from './local-fixtures';
import { guarded } from '../errors/unavailable';
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
import { ata, mintToInstructions, signTransaction, type SignedTransaction } from './transactions';
import {
  readIncomingPayments,
  type PaymentQuery,
  type PaymentSource,
  type TokenBalance,
  type TransactionHistoryReader,
} from './payments';

export interface RpcChainOptions {
  url: string;
  tokens: readonly Token[];
  /** Pays transaction fees and token-account rent. */
  payer: Signer;
  treasury: string;
  /** Local chain only: the mint authority, to pay addresses as an outside party. */
  mintAuthority?: Signer;
  /** Local chain only: the mints that authority mints (by default every token of `tokens`). */
  mintable?: readonly string[];
  /** The node's WebSocket; by default web3.js's: the RPC URL with ws(s)://, its port (if any) + 1. */
  wsUrl?: string;
  /** How long a confirmation waits for its notification before the batched status check takes it up, and how often that check runs (ms). */
  sweepMs?: number;
}

/** Confirmation over a web3.js Connection: its WebSocket's signature subscriptions, its batched statuses. */
export function confirmationSource(connection: Connection): ConfirmationSource {
  return {
    subscribe: (signature, settled) => {
      let open = true;
      const id = connection.onSignature(
        signature,
        (result) => {
          open = false;
          settled(result.err !== null);
        },
        'confirmed',
      );
      return () => {
        // Once notified, web3.js has already forgotten it (the node ends a notified subscription).
        if (open) void connection.removeSignatureListener(id).catch(() => undefined);
        open = false;
      };
    },
    statuses: (signatures) => signatureStatuses(connection, signatures),
    blockHeight: () => connection.getBlockHeight(),
  };
}

async function signatureStatuses(
  connection: Connection,
  signatures: readonly string[],
): Promise<SignatureStatus[]> {
  const { value } = await connection.getSignatureStatuses([...signatures], {
    searchTransactionHistory: true,
  });
  return signatures.map((_, i) => {
    const s = value[i];
    if (!s) return 'unknown';
    if (s.err) return 'failed';
    return s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized'
      ? 'confirmed'
      : 'unknown';
  });
}

/** What close() needs of web3.js's private WebSocket client (rpc-websockets). */
interface RpcWebSocket {
  setAutoReconnect(reconnect: boolean): void;
  close(): void;
}

export class RpcChain implements LocalChain, PaymentSource {
  readonly tokens: readonly Token[];
  readonly treasury: string;
  private readonly connection: Connection;
  /** Token accounts known to exist (they are never closed here), and those a pending transfer creates. */
  private readonly existing = new Set<string>();
  private readonly creates = new Map<string, readonly string[]>();
  private readonly confirmations: Confirmations;

  constructor(private readonly options: RpcChainOptions) {
    // A node that does not answer is DependencyUnavailable (503 at the edge; an executor's job retries).
    this.connection = guarded(
      'the chain (Solana JSON-RPC)',
      new Connection(options.url, {
        commitment: 'confirmed',
        disableRetryOnRateLimit: false,
        ...(options.wsUrl && { wsEndpoint: options.wsUrl }),
      }),
    );
    this.confirmations = new Confirmations(confirmationSource(this.connection), options.sweepMs);
    this.tokens = options.tokens;
    this.treasury = options.treasury;
  }

  /**
   * A client of the local chain node, with the fixtures derived from the node's seed. The node serves
   * its WebSocket on its RPC port (rpc-node.ts), where this client looks for it.
   */
  static local(url: string, seed?: string): RpcChain {
    const f = localFixtures(seed);
    return new RpcChain({
      url,
      wsUrl: url.replace(/^http/, 'ws'),
      tokens: localTokens(f),
      payer: f.payer,
      treasury: f.treasury.address,
      mintAuthority: f.authority,
      mintable: f.mints.map((m) => m.mint),
    });
  }

  async tokenAccount(owner: string, mint: string): Promise<TokenAccount> {
    const address = await ata(owner, mint);
    const [info] = await this.connection.getMultipleAccountsInfo([new PublicKey(address)]);
    return info
      ? { address, exists: true, amount: info.data.readBigUInt64LE(64) }
      : { address, exists: false, amount: 0n };
  }

  async balances(owner: string): Promise<Map<string, bigint>> {
    const addresses = await Promise.all(this.tokens.map((t) => ata(owner, t.mint)));
    const infos = await this.connection.getMultipleAccountsInfo(addresses.map((a) => new PublicKey(a)));
    return new Map(this.tokens.map((t, i) => [t.mint, infos[i] ? infos[i]!.data.readBigUInt64LE(64) : 0n]));
  }

  get feePayer(): string {
    return this.options.payer.address;
  }

  // Known only from what this client saw land: asking the node each time would cost a round trip.
  async accountKnown(address: string): Promise<boolean> {
    return this.existing.has(address);
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
      const value = this.connection.getLatestBlockhash();
      this.recentHash = { at: now, value };
      value.catch(() => (this.recentHash = undefined));
    }
    return this.recentHash.value;
  }

  async submit(tx: SignedTransaction): Promise<void> {
    // Watched before it is sent, so its notification cannot come before the subscription.
    const confirmation = this.confirmations.watch(tx.signature, tx.lastValidBlockHeight);
    try {
      await this.connection.sendRawTransaction(tx.wire, { skipPreflight: false, maxRetries: 0 });
    } catch (err) {
      confirmation.cancel();
      if (err instanceof SendTransactionError) {
        // The node moved past the blockhash we keep: the next transaction asks for a new one.
        if (/BlockhashNotFound/.test(err.transactionError.message)) this.recentHash = undefined;
        throw new ChainFailure(err.transactionError.message, err.transactionError.logs ?? []);
      }
      throw err;
    }
    await confirmation.done;
    for (const account of this.creates.get(tx.signature) ?? []) this.existing.add(account);
    this.creates.delete(tx.signature);
  }

  async status(signature: string): Promise<SignatureStatus> {
    return (await signatureStatuses(this.connection, [signature]))[0]!;
  }

  mintable(mint: string): boolean {
    return (
      this.options.mintAuthority !== undefined &&
      this.tokens.some((t) => t.mint === mint) &&
      (this.options.mintable?.includes(mint) ?? true)
    );
  }

  async mintTo(owner: string, mint: string, amount: bigint, reference: string): Promise<string> {
    const authority = this.options.mintAuthority;
    const token = this.tokens.find((t) => t.mint === mint);
    if (!authority || !token || !this.mintable(mint))
      throw new ChainFailure('minting needs the local chain and one of the tokens it mints');
    const hash = await this.connection.getLatestBlockhash();
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
    await this.connection.requestAirdrop(new PublicKey(address), Number(lamports));
  }

  async clock(): Promise<bigint> {
    const clock = await this.readAccount(SYSVAR_CLOCK_ADDRESS);
    if (!clock || clock.data.length < 40) throw new Error('the chain answered no Clock sysvar');
    // slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64
    return Buffer.from(clock.data).readBigInt64LE(32);
  }

  async readAccount(address: string): Promise<ChainAccount | undefined> {
    const [info] = await this.connection.getMultipleAccountsInfo([new PublicKey(address)]);
    if (!info) return undefined;
    return { owner: info.owner.toBase58(), lamports: BigInt(info.lamports), data: new Uint8Array(info.data) };
  }

  async incomingPayments(owner: string, mints: readonly string[], query?: PaymentQuery) {
    return readIncomingPayments(this.history, owner, mints, query);
  }

  /** The node's history (getSignaturesForAddress, getTransaction), which reconciliation reads. */
  transactionHistory(): TransactionHistoryReader {
    return this.history;
  }

  private readonly history: TransactionHistoryReader = {
    signaturesFor: async (address, options) =>
      (await this.connection.getSignaturesForAddress(new PublicKey(address), options)).map((s) => ({
        signature: s.signature,
        failed: s.err !== null,
      })),
    transaction: async (signature) => {
      const tx = await this.connection.getTransaction(signature, {
        commitment: 'confirmed',
        maxSupportedTransactionVersion: 0,
      });
      if (!tx?.meta) return undefined;
      const { message } = tx.transaction;
      const keys = message.getAccountKeys({
        ...(tx.meta.loadedAddresses && { accountKeysFromLookups: tx.meta.loadedAddresses }),
      });
      const balances = (list: typeof tx.meta.preTokenBalances): TokenBalance[] =>
        (list ?? []).map((b) => ({
          accountIndex: b.accountIndex,
          mint: b.mint,
          owner: b.owner ?? '',
          amount: BigInt(b.uiTokenAmount.amount),
          decimals: b.uiTokenAmount.decimals,
        }));
      return {
        signature,
        slot: BigInt(tx.slot),
        failed: tx.meta.err !== null,
        accountKeys: [
          ...keys.staticAccountKeys,
          ...(keys.accountKeysFromLookups?.writable ?? []),
          ...(keys.accountKeysFromLookups?.readonly ?? []),
        ].map((k) => k.toBase58()),
        numRequiredSignatures: message.header.numRequiredSignatures,
        instructions: message.compiledInstructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accountKeyIndexes,
          data: ix.data,
        })),
        preTokenBalances: balances(tx.meta.preTokenBalances),
        postTokenBalances: balances(tx.meta.postTokenBalances),
      };
    },
  };

  /**
   * Readiness: the node answers `getHealth` with "ok" within `timeoutMs` (a node that is down, hangs,
   * or says it is behind the cluster throws).
   */
  async health(timeoutMs: number): Promise<void> {
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json()) as { result?: string; error?: { message: string } };
    if (body.result !== 'ok')
      throw new Error(`the chain is not healthy: ${body.error?.message ?? response.status}`);
  }

  /** Local chain node only (`tokenops_warpClock`, not a Solana method): moves its clock forward. */
  async warp(seconds: bigint): Promise<bigint> {
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tokenops_warpClock',
        params: [seconds.toString()],
      }),
    });
    const body = (await response.json()) as { result?: string; error?: { message: string } };
    if (body.error || body.result === undefined)
      throw new Error(`the chain did not move its clock: ${body.error?.message ?? response.status}`);
    return BigInt(body.result);
  }

  /** Stops watching what is in flight and closes the WebSocket (web3.js keeps no handle for it). */
  async close(): Promise<void> {
    this.confirmations.close();
    const socket = (this.connection as unknown as { _rpcWebSocket?: RpcWebSocket })._rpcWebSocket;
    socket?.setAutoReconnect(false);
    socket?.close();
  }
}

export type { Chain };
