/**
 * The local lending venue: ordinary SPL accounts on the local chain, held by a key the service holds.
 *
 * No lending program can be deployed here (none ships in a package, and no Solana program toolchain
 * runs on these machines), so the venue is accounts and a key:
 *
 * - per underlying token (USDC, SOL), a vault (the venue authority's token account) and a receipt
 *   mint (kUSDC, kSOL; same decimals) whose mint authority is the venue authority;
 * - a configuration account, written once at creation and owned by the venue's program id (where no
 *   program is deployed, so nothing can ever change it): the creation time on the chain's clock, the
 *   yearly rate, the authority, and each token's receipt mint and vault.
 *
 * A deposit is one transaction: the agent pays the vault, the venue authority mints receipt tokens
 * at the exchange rate. A withdrawal is one transaction: the agent burns receipt tokens, the venue
 * authority pays the underlying from the vault. Both legs land or neither does. The rate
 * (domain/venue.ts) follows the chain's clock since the creation, so every process (the embedded
 * service, executors over RPC) computes the same rate from the chain alone. The amounts are computed
 * when the transaction is built, at the rate of that moment.
 *
 * The vault pays interest from an interest reserve minted into it at creation (ensureLocalVenue).
 */
import { SETTINGS } from '../settings/catalogue';
import { createNoopSigner, getProgramDerivedAddress, type Address, type Instruction } from '@solana/kit';
import { getBurnCheckedInstruction, getMintToCheckedInstruction } from '@solana-program/token';
import bs58 from 'bs58';
import type { Chain, LocalChain } from '../chain/port';
import type { Signer } from '../chain/keys';
import { DEFAULT_LOCAL_TOKENS, localFixtures } from '../chain/local-fixtures';
import { ata, ensureTokenAccount, referenceMemo, tokenTransfer } from '../chain/transactions';
import {
  U64_MAX,
  checkApyBps,
  exchangeRate,
  rateText,
  receiptForDeposit,
  underlyingForReceipt,
  type ExchangeRate,
} from '../domain/venue';
import { checkKlendCpiData } from './klend';
import {
  VenueRefused,
  type LendingVenue,
  type VenueAction,
  type VenueDeposit,
  type VenueDepositPlan,
  type VenuePosition,
  type VenueWithdraw,
  type VenueWithdrawPlan,
} from './port';

/** The yearly rate when none is configured: 5 %. */
export const DEFAULT_VENUE_APY_BPS = SETTINGS.VENUE_APY_BPS.default;
/** The interest reserve minted into each vault at creation when none is configured, in whole tokens. */
export const DEFAULT_INTEREST_RESERVE = 1_000_000n;

const MAGIC = new TextEncoder().encode('tokvenu1');
const RESERVE_ENTRY = 96;
const HEADER = 8 + 8 + 2 + 32 + 1;

interface Reserve {
  symbol: string;
  decimals: number;
  underlying: string;
  receipt: string;
  vault: string;
}

/** What the configuration account holds. */
export interface LocalVenueConfig {
  /** The chain's unix time when the venue was created: its rate is 1 then. */
  epoch: bigint;
  apyBps: number;
  authority: string;
  reserves: { underlying: string; receipt: string; vault: string }[];
}

/** The configuration account's address: the venue program's PDA of "local-venue". */
export async function localVenueConfigAddress(program: string): Promise<string> {
  const [address] = await getProgramDerivedAddress({
    programAddress: program as Address,
    seeds: ['local-venue'],
  });
  return address;
}

/** Layout (little-endian): "tokvenu1", epoch i64, apy_bps u16, authority, count u8, count × (underlying, receipt, vault). */
export function encodeLocalVenueConfig(config: LocalVenueConfig): Uint8Array {
  const data = new Uint8Array(HEADER + RESERVE_ENTRY * config.reserves.length);
  const view = new DataView(data.buffer);
  data.set(MAGIC, 0);
  view.setBigInt64(8, config.epoch, true);
  view.setUint16(16, checkApyBps(config.apyBps), true);
  data.set(bs58.decode(config.authority), 18);
  data[50] = config.reserves.length;
  config.reserves.forEach((r, i) => {
    const at = HEADER + RESERVE_ENTRY * i;
    data.set(bs58.decode(r.underlying), at);
    data.set(bs58.decode(r.receipt), at + 32);
    data.set(bs58.decode(r.vault), at + 64);
  });
  return data;
}

export function decodeLocalVenueConfig(data: Uint8Array): LocalVenueConfig {
  if (data.length < HEADER || !MAGIC.every((b, i) => data[i] === b))
    throw new Error('not a local venue configuration');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = data[50]!;
  if (data.length !== HEADER + RESERVE_ENTRY * count)
    throw new Error('a truncated local venue configuration');
  const key = (at: number) => bs58.encode(data.subarray(at, at + 32));
  return {
    epoch: view.getBigInt64(8, true),
    apyBps: view.getUint16(16, true),
    authority: key(18),
    reserves: Array.from({ length: count }, (_, i) => {
      const at = HEADER + RESERVE_ENTRY * i;
      return { underlying: key(at), receipt: key(at + 32), vault: key(at + 64) };
    }),
  };
}

export interface LocalVenueOptions {
  /** The local chain's seed (CHAIN_SEED): the venue's keys derive from it. */
  seed?: string;
  /** The local chain's tokens, as the chain was opened with. */
  tokens?: { symbol: string; decimals: number }[];
}

/** The local venue's keys and accounts, derived from the seed. */
async function layout(options: LocalVenueOptions) {
  const f = localFixtures(options.seed, options.tokens ?? DEFAULT_LOCAL_TOKENS);
  const reserves: Reserve[] = await Promise.all(
    f.mints.map(async (m, i) => ({
      symbol: m.symbol,
      decimals: m.decimals,
      underlying: m.mint,
      receipt: f.venue.receipts[i]!.mint,
      vault: await ata(f.venue.authority.address, m.mint),
    })),
  );
  return {
    authority: f.venue.authority,
    program: f.venue.program,
    config: await localVenueConfigAddress(f.venue.program),
    reserves,
  };
}

const noop = (address: string) => createNoopSigner(address as Address);

function checkAmount(amount: bigint, what: string): void {
  if (amount <= 0n) throw new VenueRefused('amount', `The ${what} must be more than zero.`);
  if (amount > U64_MAX) throw new VenueRefused('amount', `The ${what} is above what a token account holds.`);
}

export class LocalVenue implements LendingVenue {
  readonly name = 'Local lending venue';
  readonly program: string;
  readonly mints: readonly string[];
  private readonly authority: Signer;
  private readonly byUnderlying: ReadonlyMap<string, Reserve>;
  private readonly byAnyMint: ReadonlyMap<string, Reserve>;
  private loaded: Promise<LocalVenueConfig> | undefined;

  private constructor(
    private readonly chain: Chain,
    private readonly accounts: Awaited<ReturnType<typeof layout>>,
  ) {
    this.program = accounts.program;
    this.authority = accounts.authority;
    this.mints = accounts.reserves.map((r) => r.underlying);
    this.byUnderlying = new Map(accounts.reserves.map((r) => [r.underlying, r]));
    this.byAnyMint = new Map(
      accounts.reserves.flatMap((r) => [[r.underlying, r] as const, [r.receipt, r] as const]),
    );
  }

  /**
   * The venue on a local chain (LiteSVM in process, or the chain node over RPC). Reads nothing yet:
   * the configuration is read from the chain on first use (ensureLocalVenue writes it).
   */
  static async open(chain: Chain, options: LocalVenueOptions = {}): Promise<LocalVenue> {
    return new LocalVenue(chain, await layout(options));
  }

  receiptMint(underlying: string): string | undefined {
    return this.byUnderlying.get(underlying)?.receipt;
  }

  underlyingOf(mint: string): string | undefined {
    return this.byAnyMint.get(mint)?.underlying;
  }

  checkCpiData(action: VenueAction, data: Uint8Array | undefined, amount: bigint): void {
    checkKlendCpiData(action, data, amount);
  }

  /** The configuration, read once from the chain (it never changes) and checked against the seed's keys. */
  config(): Promise<LocalVenueConfig> {
    this.loaded ??= this.readConfig().catch((err: unknown) => {
      this.loaded = undefined;
      throw err;
    });
    return this.loaded;
  }

  private async readConfig(): Promise<LocalVenueConfig> {
    const account = await this.chain.readAccount(this.accounts.config);
    if (!account) throw new Error('the local venue is not on this chain yet (ensureLocalVenue creates it)');
    if (account.owner !== this.program) throw new Error('the local venue configuration has another owner');
    const config = decodeLocalVenueConfig(account.data);
    const expected = this.accounts.reserves;
    if (
      config.authority !== this.authority.address ||
      config.reserves.length !== expected.length ||
      config.reserves.some(
        (r, i) =>
          r.underlying !== expected[i]!.underlying ||
          r.receipt !== expected[i]!.receipt ||
          r.vault !== expected[i]!.vault,
      )
    ) {
      throw new Error(
        'the local venue on this chain was created with other keys (another CHAIN_SEED or tokens)',
      );
    }
    return config;
  }

  async exchangeRate(mint: string): Promise<ExchangeRate> {
    if (!this.byAnyMint.has(mint)) throw new VenueRefused('mint', 'The venue does not take this mint.');
    const config = await this.config();
    return exchangeRate(config.apyBps, (await this.chain.clock()) - config.epoch);
  }

  async deposit(d: VenueDeposit): Promise<VenueDepositPlan> {
    this.checkCpiData('deposit', d.cpiData, d.amount);
    const reserve = this.byUnderlying.get(d.mint);
    if (!reserve) {
      throw new VenueRefused(
        'mint',
        this.byAnyMint.has(d.mint)
          ? 'A deposit pays in the underlying token, not the receipt token.'
          : 'The venue does not take this mint.',
      );
    }
    checkAmount(d.amount, 'amount');
    const rate = await this.exchangeRate(reserve.underlying);
    const receiptAmount = receiptForDeposit(d.amount, rate);
    if (receiptAmount === 0n)
      throw new VenueRefused('amount', `The amount is below one receipt unit at the rate ${rateText(rate)}.`);
    const agentReceipt = await ensureTokenAccount(this.chain, d.agent, reserve.receipt);
    const instructions: Instruction[] = [
      referenceMemo(d.reference),
      ...agentReceipt.create,
      tokenTransfer(
        await ata(d.agent, reserve.underlying),
        reserve.vault as Address,
        d.agent,
        reserve.underlying,
        d.amount,
        reserve.decimals,
      ),
      getMintToCheckedInstruction({
        mint: reserve.receipt as Address,
        token: agentReceipt.account,
        mintAuthority: noop(this.authority.address),
        amount: receiptAmount,
        decimals: reserve.decimals,
      }),
    ];
    return {
      instructions,
      signers: [this.authority],
      underlyingMint: reserve.underlying,
      receiptMint: reserve.receipt,
      rate,
      receiptAmount,
    };
  }

  async withdraw(w: VenueWithdraw): Promise<VenueWithdrawPlan> {
    this.checkCpiData('withdraw', w.cpiData, w.receiptAmount);
    const reserve = this.byAnyMint.get(w.mint);
    if (!reserve) throw new VenueRefused('mint', 'The venue does not take this mint.');
    checkAmount(w.receiptAmount, 'amount');
    const rate = await this.exchangeRate(reserve.underlying);
    const underlyingAmount = underlyingForReceipt(w.receiptAmount, rate);
    if (underlyingAmount === 0n)
      throw new VenueRefused('amount', 'The amount is too small to pay one unit of the underlying.');
    const vault = await this.chain.tokenAccount(this.authority.address, reserve.underlying);
    if (vault.amount < underlyingAmount)
      throw new VenueRefused(
        'liquidity',
        'The venue cannot pay this withdrawal now; retry later or withdraw less.',
      );
    const agentUnderlying = await ensureTokenAccount(this.chain, w.agent, reserve.underlying);
    const instructions: Instruction[] = [
      referenceMemo(w.reference),
      ...agentUnderlying.create,
      getBurnCheckedInstruction({
        account: await ata(w.agent, reserve.receipt),
        mint: reserve.receipt as Address,
        authority: noop(w.agent),
        amount: w.receiptAmount,
        decimals: reserve.decimals,
      }),
      tokenTransfer(
        reserve.vault as Address,
        agentUnderlying.account,
        this.authority.address,
        reserve.underlying,
        underlyingAmount,
        reserve.decimals,
      ),
    ];
    return {
      instructions,
      signers: [this.authority],
      underlyingMint: reserve.underlying,
      receiptMint: reserve.receipt,
      rate,
      underlyingAmount,
    };
  }

  async position(owner: string, mint: string): Promise<VenuePosition> {
    const reserve = this.byAnyMint.get(mint);
    if (!reserve) throw new VenueRefused('mint', 'The venue does not take this mint.');
    const receipt = (await this.chain.tokenAccount(owner, reserve.receipt)).amount;
    const rate = await this.exchangeRate(reserve.underlying);
    return {
      underlyingMint: reserve.underlying,
      receiptMint: reserve.receipt,
      receipt,
      underlying: underlyingForReceipt(receipt, rate),
    };
  }
}

/** A local chain that can write the venue's configuration account (LiteSvmChain). */
export interface LocalVenueHost extends LocalChain {
  preloadAccount(address: string, account: { owner: string; data: Uint8Array }): Promise<boolean>;
}

export interface EnsureLocalVenueOptions extends LocalVenueOptions {
  /** The yearly rate in basis points (VENUE_APY_BPS); only read when the venue is created. */
  apyBps?: number;
  /** The interest reserve minted into each vault at creation, in whole tokens. */
  interestReserve?: bigint;
}

/**
 * Creates the local venue on the chain if it is not there yet; idempotent (call it at every start of
 * the embedded service and of the chain node). Each vault is topped up to the interest reserve
 * (minted by the local mint authority, so every unit has a holder), then the configuration account
 * is written with the chain's time as the venue's creation. Once the configuration exists nothing
 * changes, whatever the options say: the returned configuration is what the chain holds.
 */
export async function ensureLocalVenue(
  chain: LocalVenueHost,
  options: EnsureLocalVenueOptions = {},
): Promise<{ created: boolean; config: LocalVenueConfig }> {
  const accounts = await layout(options);
  const existing = await chain.readAccount(accounts.config);
  if (existing) return { created: false, config: decodeLocalVenueConfig(existing.data) };
  const apyBps = checkApyBps(options.apyBps ?? DEFAULT_VENUE_APY_BPS);
  const reserveTokens = options.interestReserve ?? DEFAULT_INTEREST_RESERVE;
  if (reserveTokens < 0n) throw new RangeError('the interest reserve is not negative');
  for (const r of accounts.reserves) {
    const mint = await chain.readAccount(r.receipt);
    if (!mint || bs58.encode(mint.data.subarray(4, 36)) !== accounts.authority.address)
      throw new Error(`the receipt mint of ${r.symbol} is missing or not the venue authority's`);
    const target = reserveTokens * 10n ** BigInt(r.decimals);
    const held = (await chain.tokenAccount(accounts.authority.address, r.underlying)).amount;
    if (held < target) {
      await chain.mintTo(
        accounts.authority.address,
        r.underlying,
        target - held,
        `venue-reserve:${r.symbol}`,
      );
    } else if (target === 0n && held === 0n) {
      // no reserve: the vault must still exist for the first deposit to land
      await chain.mintTo(accounts.authority.address, r.underlying, 0n, `venue-vault:${r.symbol}`);
    }
  }
  const config: LocalVenueConfig = {
    epoch: await chain.clock(),
    apyBps,
    authority: accounts.authority.address,
    reserves: accounts.reserves.map(({ underlying, receipt, vault }) => ({ underlying, receipt, vault })),
  };
  await chain.preloadAccount(accounts.config, {
    owner: accounts.program,
    data: encodeLocalVenueConfig(config),
  });
  return { created: true, config };
}
