/**
 * Configuration of the processes, from the environment, checked at start: every problem is reported
 * at once, by name, with what is expected (ConfigError). Each process asks only for what it uses, by
 * the setting's entry in settings/catalogue.ts.
 */
import bs58 from 'bs58';
import { isAddress, type Token } from '../domain/tokens';
import { signerFromSeed, type Signer } from '../chain/keys';
import { localFixtures, localTokens } from '../chain/local-fixtures';
import {
  defaultFor,
  settingSpec,
  type ChoiceSetting,
  type FlagSetting,
  type IntSetting,
  type KeySetting,
  type ProcessName,
  type SettingName,
  type SettingSpec,
  type TextSetting,
  type UrlSetting,
} from '../settings/catalogue';

const KEY_FORMAT = '32 bytes in base64, e.g. `openssl rand -base64 32`';

/** What a process found wrong in its environment at start: every problem, each naming its setting. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export type EventStoreConfig =
  /** `pool`: connections this process keeps (PostgreSQL allows 100 in all by default). */
  { kind: 'postgres'; url: string; schema: string; pool: number } | { kind: 'eventstoredb'; url: string };

export type ChainConfig =
  /** The local chain node (`npm run start:chain`): its fixtures derive from its seed. */
  | { kind: 'local'; urls: string[]; rpc: RpcSettings; seed: string; tokens: Token[] }
  /** A Solana cluster: a fee payer, the treasury that takes the protocol fee, the token registry. */
  | { kind: 'cluster'; urls: string[]; rpc: RpcSettings; payer: Signer; treasury: string; tokens: Token[] };

/** How the RPC nodes of SOLANA_RPC_URL are judged (rpc-nodes.ts). */
export interface RpcSettings {
  timeoutMs: number;
  maxSlotLag: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Reads settings by their catalogue entry (settings/catalogue.ts): the default and the bounds are
 * the entry's. A process names itself (`role`): reading a setting the catalogue does not give it is a
 * programming error, thrown at once, so the catalogue's processes stay true.
 */
export class Env {
  readonly problems: string[] = [];

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    readonly role?: ProcessName,
  ) {}

  /** The environment of process `role` (this very process). */
  static of(role: ProcessName): Env {
    return new Env(process.env, role);
  }

  private spec(name: SettingName): SettingSpec {
    const spec = settingSpec(name);
    if (this.role && !spec.processes.includes(this.role))
      throw new Error(`${this.role} reads ${name}, which shared/src/settings/catalogue.ts does not give it`);
    return spec;
  }

  raw(name: SettingName): string | undefined {
    this.spec(name);
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  /** The setting's value, else its default ('' when it has none). */
  text(name: TextSetting): string {
    const spec = this.spec(name);
    const fallback = spec.type === 'text' ? defaultFor(spec.default, this.role) : undefined;
    return this.raw(name) ?? fallback ?? '';
  }

  required(name: TextSetting | UrlSetting | KeySetting): string {
    const v = this.raw(name);
    if (v === undefined) {
      const spec = this.spec(name);
      const format = spec.type === 'key' ? KEY_FORMAT : 'format' in spec ? spec.format : undefined;
      this.problems.push(`${name} is required: ${spec.meaning}${format ? `; ${format}` : ''}`);
    }
    return v ?? '';
  }

  int(name: IntSetting): number {
    const spec = this.spec(name);
    if (spec.type !== 'int') throw new Error(`${name} is not a number setting`);
    const fallback = defaultFor(spec.default, this.role)!;
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < spec.min || n > spec.max) {
      this.problems.push(`${name}=${raw}: expected a whole number from ${spec.min} to ${spec.max}`);
      return fallback;
    }
    return n;
  }

  /** `true` or `false`. */
  flag(name: FlagSetting): boolean {
    const spec = this.spec(name);
    if (spec.type !== 'flag') throw new Error(`${name} is not a flag setting`);
    const raw = this.raw(name);
    if (raw === 'true' || raw === 'false') return raw === 'true';
    if (raw !== undefined) this.problems.push(`${name}=${raw}: expected true or false`);
    return spec.default;
  }

  /** One of the entry's values. */
  choice(name: ChoiceSetting): string {
    const spec = this.spec(name);
    if (spec.type !== 'choice') throw new Error(`${name} is not a choice setting`);
    const v = this.raw(name) ?? spec.default;
    if (!spec.values.includes(v)) this.problems.push(`${name}=${v}: expected ${spec.values.join(', ')}`);
    return v;
  }

  /** A URL of one of the entry's protocols; required when the entry has no default. */
  url(name: UrlSetting): string {
    const spec = this.spec(name);
    if (spec.type !== 'url') throw new Error(`${name} is not a URL setting`);
    const v = spec.default === undefined ? this.required(name) : (this.raw(name) ?? spec.default);
    if (v) this.checkUrl(name, v, spec);
    return v;
  }

  /** Comma-separated URLs of the entry's protocols (one at least when the entry has no default). */
  urls(name: UrlSetting): string[] {
    const spec = this.spec(name);
    if (spec.type !== 'url') throw new Error(`${name} is not a URL setting`);
    const list = (this.raw(name) ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== '');
    if (list.length === 0) {
      const one = this.url(name);
      return one ? [one] : [];
    }
    for (const u of list) this.checkUrl(name, u, spec);
    return list;
  }

  private checkUrl(name: UrlSetting, v: string, spec: Extract<SettingSpec, { type: 'url' }>): void {
    try {
      const u = new URL(v);
      if (!spec.protocols.includes(u.protocol))
        this.problems.push(`${name}: expected a ${spec.protocols.join(' or ')} URL, got ${u.protocol}`);
    } catch {
      // Its value is not shown: a URL may carry a password or a provider's API key.
      this.problems.push(`${name}: not a URL (${spec.format})`);
    }
  }

  /** 32 bytes in base64, required in the server topology (never generated: every process shares it). */
  secret(name: KeySetting): Uint8Array {
    const raw = this.required(name);
    return raw ? this.secretBytes(name, raw) : new Uint8Array(32);
  }

  /** The value of secret `name` as 32 bytes decoded from base64 (another length is a problem). */
  secretBytes(name: KeySetting, base64: string): Uint8Array {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length !== 32)
      this.problems.push(`${name}: expected 32 bytes in base64, got ${bytes.length} bytes`);
    return bytes;
  }

  /** Where a process listens: PORT (the process's default) and HOST. */
  listenAddress(): { port: number; host: string } {
    return { port: this.int('PORT'), host: this.text('HOST') };
  }

  /** The key-encryption key of agent wallet keys: the API seals them, the executors unseal them. */
  keyEncryptionKey(): Uint8Array {
    return this.secret('KEY_ENCRYPTION_KEY');
  }

  logLevel(): string {
    return this.choice('LOG_LEVEL');
  }

  eventStore(): EventStoreConfig {
    const url = this.url('EVENTSTORE_URL');
    if (url.startsWith('esdb')) return { kind: 'eventstoredb', url };
    const schema = this.text('EVENTSTORE_SCHEMA');
    if (!IDENTIFIER.test(schema)) this.problems.push(`EVENTSTORE_SCHEMA=${schema}: expected ${IDENTIFIER}`);
    return { kind: 'postgres', url, schema, pool: this.int('EVENTSTORE_POOL') };
  }

  /**
   * Where webhook subscriptions and delivery logs are kept: WEBHOOK_DATABASE_URL (PostgreSQL), by
   * default the event log's own database when that is PostgreSQL (tables webhook_*).
   */
  deliveryDatabase(eventStore: EventStoreConfig): { url: string; schema: string; pool: number } {
    const own = this.raw('WEBHOOK_DATABASE_URL');
    if (own !== undefined) {
      const url = this.url('WEBHOOK_DATABASE_URL');
      return { url, schema: this.text('WEBHOOK_DATABASE_SCHEMA'), pool: 5 };
    }
    if (eventStore.kind === 'postgres') return { url: eventStore.url, schema: eventStore.schema, pool: 5 };
    this.problems.push(
      'WEBHOOK_DATABASE_URL: required when the event log is EventStoreDB (webhook deliveries live in PostgreSQL)',
    );
    return { url: '', schema: 'tokenops', pool: 1 };
  }

  redis(): { url: string; prefix: string } {
    const url = this.url('REDIS_URL');
    const prefix = this.text('REDIS_PREFIX');
    if (!/^[A-Za-z0-9_.-]+$/.test(prefix))
      this.problems.push(`REDIS_PREFIX=${prefix}: letters, digits, _ . - only`);
    return { url, prefix };
  }

  /**
   * The chain: SOLANA_RPC_URL, and either CHAIN_SEED (the local chain node's seed; the default) or,
   * for a real cluster, FEE_PAYER_SECRET (base58 32-byte seed), TREASURY_ADDRESS and TOKENS
   * (`SYMBOL:mint:decimals,...`, the first is the base token).
   */
  chain(options: { rpc: boolean }): ChainConfig {
    const urls = options.rpc ? this.urls('SOLANA_RPC_URL') : [];
    const rpc = {
      timeoutMs: this.int('SOLANA_RPC_TIMEOUT_MS'),
      maxSlotLag: this.int('SOLANA_RPC_MAX_SLOT_LAG'),
    };
    const payerText = this.raw('FEE_PAYER_SECRET');
    if (!payerText) {
      const seed = this.text('CHAIN_SEED');
      const tokens = localTokens(localFixtures(seed));
      return { kind: 'local', urls, rpc, seed, tokens };
    }
    let payer = signerFromSeed(new Uint8Array(32));
    try {
      payer = signerFromSeed(bs58.decode(payerText));
    } catch {
      this.problems.push('FEE_PAYER_SECRET: expected a base58 32-byte ed25519 seed');
    }
    const treasury = this.required('TREASURY_ADDRESS');
    if (treasury && !isAddress(treasury)) this.problems.push('TREASURY_ADDRESS: not a base58 address');
    const tokens: Token[] = [];
    for (const entry of this.required('TOKENS').split(',')) {
      if (!entry) continue;
      const [symbol, mint, decimals] = entry.split(':');
      const d = Number(decimals);
      if (!symbol || !mint || !isAddress(mint) || !Number.isInteger(d) || d < 0 || d > 12)
        this.problems.push(`TOKENS: ${entry} is not SYMBOL:mint:decimals`);
      else tokens.push({ symbol, mint, decimals: d });
    }
    return { kind: 'cluster', urls, rpc, payer, treasury, tokens };
  }

  wallets(name: TextSetting): Set<string> | undefined {
    const raw = this.raw(name);
    if (!raw) return undefined;
    const set = new Set(
      raw
        .split(',')
        .map((w) => w.trim())
        .filter(Boolean),
    );
    for (const w of set)
      if (!isAddress(w)) this.problems.push(`${name}: ${w} is not a base58 wallet address`);
    return set;
  }

  /** Throws every problem found so far at once. */
  check(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}
