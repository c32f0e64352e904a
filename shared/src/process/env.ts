/**
 * Configuration of the server processes, from the environment, checked at start: every problem is
 * reported at once, by name, with what is expected (ConfigError). Each process asks only for what it
 * uses.
 */
import bs58 from 'bs58';
import { isAddress, type Token } from '../domain/tokens';
import { signerFromSeed, type Signer } from '../chain/keys';
import { localFixtures, localTokens } from '../chain/local-fixtures';
import { ConfigError } from './lifecycle';

export type EventStoreConfig =
  /** `pool`: connections this process keeps (PostgreSQL allows 100 in all by default). */
  { kind: 'postgres'; url: string; schema: string; pool: number } | { kind: 'eventstoredb'; url: string };

export type ChainConfig =
  /** The local chain node (`npm run start:chain`): its fixtures derive from its seed. */
  | { kind: 'local'; url: string; seed: string; tokens: Token[] }
  /** A Solana cluster: a fee payer, the treasury that takes the protocol fee, the token registry. */
  | { kind: 'cluster'; url: string; payer: Signer; treasury: string; tokens: Token[] };

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const LEVELS = ['error', 'warn', 'info', 'debug', 'silent'];

export class Env {
  readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  text(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  required(name: string, what: string): string {
    const v = this.raw(name);
    if (v === undefined) this.problems.push(`${name} is required: ${what}`);
    return v ?? '';
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name}=${raw}: expected a whole number from ${min} to ${max}`);
      return fallback;
    }
    return n;
  }

  url(name: string, protocols: string[], what: string, fallback?: string): string {
    const v = fallback === undefined ? this.required(name, what) : this.text(name, fallback);
    if (!v) return v;
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol))
        this.problems.push(`${name}: expected a ${protocols.join(' or ')} URL, got ${u.protocol}`);
    } catch {
      this.problems.push(`${name}: ${JSON.stringify(v)} is not a URL (${what})`);
    }
    return v;
  }

  /** 32 bytes in base64, required in the server topology (never generated: every process shares it). */
  secret(name: string, what: string): Uint8Array {
    const raw = this.required(name, `${what}; 32 bytes in base64, e.g. \`openssl rand -base64 32\``);
    return raw ? this.secretBytes(name, raw) : new Uint8Array(32);
  }

  /** The value of secret `name` as 32 bytes decoded from base64 (another length is a problem). */
  secretBytes(name: string, base64: string): Uint8Array {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length !== 32)
      this.problems.push(`${name}: expected 32 bytes in base64, got ${bytes.length} bytes`);
    return bytes;
  }

  /** Where a process listens: PORT (its default given) and HOST (loopback unless set). */
  listenAddress(defaultPort: number): { port: number; host: string } {
    return { port: this.int('PORT', defaultPort, 0, 65535), host: this.text('HOST', '127.0.0.1') };
  }

  /** The key-encryption key of agent wallet keys: the API seals them, the executors unseal them. */
  keyEncryptionKey(): Uint8Array {
    return this.secret(
      'KEY_ENCRYPTION_KEY',
      'encrypts agent wallet keys at rest (the API and executors share it)',
    );
  }

  logLevel(): string {
    const level = this.text('LOG_LEVEL', 'info');
    if (!LEVELS.includes(level)) this.problems.push(`LOG_LEVEL=${level}: expected ${LEVELS.join(', ')}`);
    return level;
  }

  eventStore(): EventStoreConfig {
    const url = this.url(
      'EVENTSTORE_URL',
      ['postgres:', 'postgresql:', 'esdb:', 'esdb+discover:'],
      'the event log, postgres://user@host:5432/db or esdb://host:2113?tls=false',
    );
    if (url.startsWith('esdb')) return { kind: 'eventstoredb', url };
    const schema = this.text('EVENTSTORE_SCHEMA', 'tokenops');
    if (!IDENTIFIER.test(schema)) this.problems.push(`EVENTSTORE_SCHEMA=${schema}: expected ${IDENTIFIER}`);
    return { kind: 'postgres', url, schema, pool: this.int('EVENTSTORE_POOL', 10, 1, 500) };
  }

  /**
   * Where webhook subscriptions and delivery logs are kept: WEBHOOK_DATABASE_URL (PostgreSQL), by
   * default the event log's own database when that is PostgreSQL (tables webhook_*).
   */
  deliveryDatabase(eventStore: EventStoreConfig): { url: string; schema: string; pool: number } {
    const own = this.raw('WEBHOOK_DATABASE_URL');
    if (own !== undefined) {
      const url = this.url(
        'WEBHOOK_DATABASE_URL',
        ['postgres:', 'postgresql:'],
        'webhook deliveries, postgres://…',
      );
      return { url, schema: this.text('WEBHOOK_DATABASE_SCHEMA', 'tokenops'), pool: 5 };
    }
    if (eventStore.kind === 'postgres') return { url: eventStore.url, schema: eventStore.schema, pool: 5 };
    this.problems.push(
      'WEBHOOK_DATABASE_URL: required when the event log is EventStoreDB (webhook deliveries live in PostgreSQL)',
    );
    return { url: '', schema: 'tokenops', pool: 1 };
  }

  redis(): { url: string; prefix: string } {
    const url = this.url(
      'REDIS_URL',
      ['redis:', 'rediss:'],
      'read models, queues and rate limits, redis://host:6379',
    );
    const prefix = this.text('REDIS_PREFIX', 'tokenops');
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
    const url = options.rpc
      ? this.url(
          'SOLANA_RPC_URL',
          ['http:', 'https:'],
          'a Solana JSON-RPC endpoint (the local chain node or a cluster)',
        )
      : (this.raw('SOLANA_RPC_URL') ?? '');
    const payerText = this.raw('FEE_PAYER_SECRET');
    if (!payerText) {
      const seed = this.text('CHAIN_SEED', 'local-chain');
      const tokens = localTokens(localFixtures(seed));
      return { kind: 'local', url, seed, tokens };
    }
    let payer = signerFromSeed(new Uint8Array(32));
    try {
      payer = signerFromSeed(bs58.decode(payerText));
    } catch {
      this.problems.push('FEE_PAYER_SECRET: expected a base58 32-byte ed25519 seed');
    }
    const treasury = this.required('TREASURY_ADDRESS', 'the address that receives the protocol fee');
    if (treasury && !isAddress(treasury)) this.problems.push('TREASURY_ADDRESS: not a base58 address');
    const tokens: Token[] = [];
    for (const entry of this.required('TOKENS', 'the token registry, SYMBOL:mint:decimals,...').split(',')) {
      if (!entry) continue;
      const [symbol, mint, decimals] = entry.split(':');
      const d = Number(decimals);
      if (!symbol || !mint || !isAddress(mint) || !Number.isInteger(d) || d < 0 || d > 12)
        this.problems.push(`TOKENS: ${entry} is not SYMBOL:mint:decimals`);
      else tokens.push({ symbol, mint, decimals: d });
    }
    return { kind: 'cluster', url, payer, treasury, tokens };
  }

  wallets(name: string): Set<string> | undefined {
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
