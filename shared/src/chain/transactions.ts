/**
 * Builds and signs the service's chain transactions, for every chain adapter: @solana/kit compiles
 * the message, the @solana-program instruction builders make the instructions, node:crypto signs.
 * Each transaction carries a memo naming the intent it serves: two intents never share a
 * transaction, and an auditor can tie every transfer on chain to its event.
 */
import {
  AccountRole,
  createNoopSigner,
  type Address,
  type Instruction,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import bs58 from 'bs58';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import type { Signer } from './keys';

export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;

export interface SignedTransaction {
  /** The first signature, base58: the transaction's id on chain. */
  signature: string;
  /** The signed transaction (kit's form, which LiteSVM takes as it is). */
  transaction: Transaction;
  /** The wire bytes to submit over RPC. */
  wire: Uint8Array;
  /** The block height after which the blockhash expires (RPC adapters). */
  lastValidBlockHeight: bigint;
}

export interface RecentBlockhash {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

const noop = (address: string) => createNoopSigner(address as Address);

// Deriving an associated token address costs an on-curve check; the answers never change.
const ataCache = new Map<string, Address>();
export async function ata(owner: string, mint: string): Promise<Address> {
  const key = `${owner}:${mint}`;
  let found = ataCache.get(key);
  if (!found) {
    if (ataCache.size > 100_000) ataCache.clear();
    [found] = await findAssociatedTokenPda({
      owner: owner as Address,
      mint: mint as Address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    ataCache.set(key, found);
  }
  return found;
}

const memo = (text: string): Instruction => ({
  programAddress: MEMO_PROGRAM_ADDRESS,
  data: new TextEncoder().encode(text),
});

// Decoded addresses, kept: a service uses the same few thousand addresses over and over.
const addressBytes = new Map<string, Uint8Array>();
function bytesOf(address: string): Uint8Array {
  let bytes = addressBytes.get(address);
  if (!bytes) {
    if (addressBytes.size > 200_000) addressBytes.clear();
    bytes = bs58.decode(address);
    if (bytes.length !== 32) throw new Error(`${address} is not a 32-byte address`);
    addressBytes.set(address, bytes);
  }
  return bytes;
}

function compactU16(n: number): number[] {
  const out: number[] = [];
  let rest = n;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const isSigner = (role: AccountRole) => (role & 2) !== 0;
const isWritable = (role: AccountRole) => (role & 1) !== 0;

/**
 * Compiles a legacy transaction message: the fee payer, then writable signers, read-only signers,
 * writable accounts, read-only accounts (programs among them); every account once, with the
 * strongest role any instruction gives it. The format is Solana's legacy message; a test checks that
 * it decodes to the same instructions as @solana/kit's compiler.
 */
export function compileLegacyMessage(
  instructions: readonly Instruction[],
  feePayer: string,
  blockhash: string,
): Uint8Array {
  const roles = new Map<string, AccountRole>([[feePayer, AccountRole.WRITABLE_SIGNER]]);
  const merge = (address: string, role: AccountRole) =>
    roles.set(address, ((roles.get(address) ?? 0) | role) as AccountRole);
  for (const ix of instructions) {
    for (const meta of ix.accounts ?? []) merge(meta.address, meta.role);
    merge(ix.programAddress, AccountRole.READONLY);
  }
  const group = (signer: boolean, writable: boolean) =>
    [...roles]
      .filter(([a, r]) => a !== feePayer && isSigner(r) === signer && isWritable(r) === writable)
      .map(([a]) => a);
  const keys = [
    feePayer,
    ...group(true, true),
    ...group(true, false),
    ...group(false, true),
    ...group(false, false),
  ];
  const index = new Map(keys.map((k, i) => [k, i]));
  const signers = keys.filter((k) => isSigner(roles.get(k)!));
  const header = [
    signers.length,
    signers.filter((k) => !isWritable(roles.get(k)!)).length,
    keys.filter((k) => !isSigner(roles.get(k)!) && !isWritable(roles.get(k)!)).length,
  ];
  const parts: (number[] | Uint8Array)[] = [
    header,
    compactU16(keys.length),
    ...keys.map(bytesOf),
    bytesOf(blockhash),
    compactU16(instructions.length),
  ];
  for (const ix of instructions) {
    const accounts = (ix.accounts ?? []).map((m) => index.get(m.address)!);
    const data = ix.data ?? new Uint8Array();
    parts.push(
      [
        index.get(ix.programAddress)!,
        ...compactU16(accounts.length),
        ...accounts,
        ...compactU16(data.length),
      ],
      data as Uint8Array,
    );
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Compiles the instructions and signs with node:crypto, in the order the message lists its signers. */
export function signTransaction(
  instructions: readonly Instruction[],
  feePayer: Signer,
  signers: readonly Signer[],
  hash: RecentBlockhash,
): SignedTransaction {
  const messageBytes = compileLegacyMessage(instructions, feePayer.address, hash.blockhash);
  const required = messageBytes[0]!;
  const bySigner = new Map([feePayer, ...signers].map((s) => [s.address, s]));
  const signatures: Record<string, SignatureBytes> = {};
  const wire = new Uint8Array(1 + 64 * required + messageBytes.length);
  wire[0] = required; // compact-u16 of a count below 128 is one byte
  for (let i = 0; i < required; i++) {
    const address = bs58.encode(messageBytes.subarray(4 + 32 * i, 4 + 32 * (i + 1)));
    const signer = bySigner.get(address);
    if (!signer) throw new Error(`no signer for ${address}`);
    const signature = signer.sign(messageBytes);
    signatures[address] = signature as SignatureBytes;
    wire.set(signature, 1 + 64 * i);
  }
  wire.set(messageBytes, 1 + 64 * required);
  const transaction = Object.freeze({
    messageBytes,
    signatures: Object.freeze(signatures),
  }) as unknown as Transaction;
  return {
    signature: bs58.encode(wire.subarray(1, 65)),
    transaction,
    wire,
    lastValidBlockHeight: hash.lastValidBlockHeight,
  };
}

export interface TransferWithFee {
  /** The agent's wallet: owns the source token account and signs. */
  from: Signer;
  to: string;
  mint: string;
  decimals: number;
  /** Base units to the recipient. */
  net: bigint;
  /** Base units to the treasury (may be 0). */
  fee: bigint;
  treasury: string;
  /** Names the intent (memo): keeps transactions of two intents apart. */
  reference: string;
  /** A second memo instruction's text, when the transfer carries one (the variant's memo digest). */
  memo?: string;
}

/** What a builder asks of the chain: the fee payer, and whether an account exists already. */
export interface BuildContext {
  feePayer: string;
  accountKnown(address: string): Promise<boolean>;
}

/** The owner's associated token account, with its (idempotent) creation when it is not known to exist. */
export async function ensureTokenAccount(
  chain: BuildContext,
  owner: string,
  mint: string,
): Promise<{ account: Address; create: Instruction[] }> {
  const account = await ata(owner, mint);
  if (await chain.accountKnown(account)) return { account, create: [] };
  return {
    account,
    create: [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: noop(chain.feePayer),
        ata: account,
        owner: owner as Address,
        mint: mint as Address,
      }),
    ],
  };
}

/** An SPL transfer of `amount` base units of `mint` between two token accounts, signed by `authority`. */
export const tokenTransfer = (
  source: Address,
  destination: Address,
  authority: string,
  mint: string,
  amount: bigint,
  decimals: number,
): Instruction =>
  getTransferCheckedInstruction({
    source,
    mint: mint as Address,
    destination,
    authority: noop(authority),
    amount,
    decimals,
  });

/** The memo naming the intent a transaction serves. */
export const referenceMemo = memo;

/** The recipient's payment and the protocol fee in one transaction: both land or neither. */
export async function transferWithFeeInstructions(
  t: TransferWithFee,
  chain: BuildContext,
): Promise<Instruction[]> {
  const source = await ata(t.from.address, t.mint);
  const recipient = await ensureTokenAccount(chain, t.to, t.mint);
  const out: Instruction[] = [memo(t.reference), ...(t.memo !== undefined ? [memo(t.memo)] : [])];
  out.push(...recipient.create);
  out.push(tokenTransfer(source, recipient.account, t.from.address, t.mint, t.net, t.decimals));
  if (t.fee > 0n) {
    const treasury = await ensureTokenAccount(chain, t.treasury, t.mint);
    out.push(...treasury.create);
    out.push(tokenTransfer(source, treasury.account, t.from.address, t.mint, t.fee, t.decimals));
  }
  return out;
}

/** Creates a mint (local chain fixtures). */
export function createMintInstructions(
  payer: Signer,
  mint: Signer,
  authority: string,
  decimals: number,
  rentLamports: bigint,
): Instruction[] {
  return [
    getCreateAccountInstruction({
      payer: noop(payer.address),
      newAccount: noop(mint.address),
      lamports: rentLamports,
      space: getMintSize(),
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({
      mint: mint.address as Address,
      decimals,
      mintAuthority: authority as Address,
    }),
  ];
}

/** Mints to an owner's token account, creating it if needed (an outside payment on the local chain). */
export async function mintToInstructions(
  payer: Signer,
  authority: Signer,
  owner: string,
  mint: string,
  decimals: number,
  amount: bigint,
  reference: string,
): Promise<Instruction[]> {
  const account = await ata(owner, mint);
  return [
    memo(reference),
    getCreateAssociatedTokenIdempotentInstruction({
      payer: noop(payer.address),
      ata: account,
      owner: owner as Address,
      mint: mint as Address,
    }),
    getMintToCheckedInstruction({
      mint: mint as Address,
      token: account,
      mintAuthority: noop(authority.address),
      amount,
      decimals,
    }),
  ];
}

/** A chain that builds and signs (the chain port's part the builders need). */
export interface Preparer extends BuildContext {
  prepare(instructions: readonly Instruction[], signers: readonly Signer[]): Promise<SignedTransaction>;
}

/** A transfer with its fee, built and signed by the agent; nothing is sent yet. */
export async function prepareTransfer(chain: Preparer, t: TransferWithFee): Promise<SignedTransaction> {
  return chain.prepare(await transferWithFeeInstructions(t, chain), [t.from]);
}
