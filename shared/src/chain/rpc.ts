/**
 * The chain over Solana JSON-RPC (`@solana/web3.js` Connection): any cluster, or the local chain node.
 * Transactions are built and signed by the same code as the LiteSVM adapter and sent raw.
 * Confirmation polls the signature's status until it lands, fails, or its blockhash expires (the
 * block height passes the transaction's last valid height): then it is reported as expired, and the
 * caller may check `status` and sign anew, never resending a transaction that could still land.
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
  /** How often confirmation polls (ms). */
  pollMs?: number;
}

/** Waits for a signature to land or fail, or for its blockhash to expire. */
export async function awaitConfirmation(
  status: () => Promise<SignatureStatus>,
  blockHeight: () => Promise<number>,
  lastValidBlockHeight: bigint,
  pollMs: number,
): Promise<void> {
  for (;;) {
    const s = await status();
    if (s === 'confirmed') return;
    if (s === 'failed') throw new ChainFailure('transaction failed');
    if (BigInt(await blockHeight()) > lastValidBlockHeight) {
      // Expired: it can no longer land. One last look, in case it landed at the very end.
      if ((await status()) === 'confirmed') return;
      throw new ChainFailure('BlockhashExpired: the transaction did not land before its blockhash expired');
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export class RpcChain implements LocalChain, PaymentSource {
  readonly tokens: readonly Token[];
  readonly treasury: string;
  private readonly connection: Connection;
  /** Token accounts known to exist (they are never closed here), and those a pending transfer creates. */
  private readonly existing = new Set<string>();
  private readonly creates = new Map<string, readonly string[]>();

  constructor(private readonly options: RpcChainOptions) {
    // A node that does not answer is DependencyUnavailable (503 at the edge; an executor's job retries).
    this.connection = guarded(
      'the chain (Solana JSON-RPC)',
      new Connection(options.url, { commitment: 'confirmed', disableRetryOnRateLimit: false }),
    );
    this.tokens = options.tokens;
    this.treasury = options.treasury;
  }

  /** A client of the local chain node, with the fixtures derived from the node's seed. */
  static local(url: string, seed?: string): RpcChain {
    const f = localFixtures(seed);
    return new RpcChain({
      url,
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
    try {
      await this.connection.sendRawTransaction(tx.wire, { skipPreflight: false, maxRetries: 0 });
    } catch (err) {
      if (err instanceof SendTransactionError) {
        // The node moved past the blockhash we keep: the next transaction asks for a new one.
        if (/BlockhashNotFound/.test(err.transactionError.message)) this.recentHash = undefined;
        throw new ChainFailure(err.transactionError.message, err.transactionError.logs ?? []);
      }
      throw err;
    }
    await awaitConfirmation(
      () => this.status(tx.signature),
      () => this.connection.getBlockHeight(),
      tx.lastValidBlockHeight,
      this.options.pollMs ?? 200,
    );
    for (const account of this.creates.get(tx.signature) ?? []) this.existing.add(account);
    this.creates.delete(tx.signature);
  }

  async status(signature: string): Promise<SignatureStatus> {
    const { value } = await this.connection.getSignatureStatuses([signature], {
      searchTransactionHistory: true,
    });
    const s = value[0];
    if (!s) return 'unknown';
    if (s.err) return 'failed';
    return s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized'
      ? 'confirmed'
      : 'unknown';
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

  async close(): Promise<void> {}
}

export type { Chain };
