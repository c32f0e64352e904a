/**
 * Every environment setting of the service, stated once: its type, default, bounds, the processes that
 * read it, whether it is a secret, and what it means. `Env` reads a setting by its entry here (so a
 * name that is not here does not compile, and a process that reads a setting the table does not give
 * it fails at start); README.md's and docs/operations.md's tables are generated from it
 * (`npm run docs:tables`, table.ts).
 */
import { DEFAULT_DELIVERY_RETRY } from '../application/webhooks/deliver';
import { DEFAULT_RETRY, retrySpan } from '../queue/port';
import { TAKEOVER } from './takeover';
import { DEFAULT_COMPUTE_BUDGET } from '../domain/priority-fee';

/** How long the default retries take (EXECUTOR_RETRY_ATTEMPTS's meaning says it). */
const DEFAULT_SPAN = retrySpan(DEFAULT_RETRY);
const seconds = (ms: number) => String(Math.round(ms / 100) / 10);

/** The processes: the embedded default (`npm start`) and those of the server topology. */
export const PROCESSES = ['embedded', 'api', 'projector', 'executor', 'delivery', 'chain', 'replay'] as const;
export type ProcessName = (typeof PROCESSES)[number];

/** A default for every process, or one per process where they differ (PORT, DATA_DIR). */
export type PerProcess<T> = T | { readonly [P in ProcessName]?: T };

interface Common {
  readonly processes: readonly ProcessName[];
  /** One sentence: what the setting does (the docs' meaning column). */
  readonly meaning: string;
  /** Never logged nor shown; the docs mark it. */
  readonly secret?: boolean;
  /** What the docs say the default is, where the value alone does not say it. */
  readonly shown?: PerProcess<string>;
}

export type SettingSpec = Common &
  (
    | {
        readonly type: 'int';
        readonly default: PerProcess<number>;
        readonly min: number;
        readonly max: number;
      }
    /** Text; no default: unset (or required where the reader says so). `format`: what a value looks like. */
    | { readonly type: 'text'; readonly default?: PerProcess<string>; readonly format?: string }
    /** A URL of one of `protocols`; no default: required. */
    | {
        readonly type: 'url';
        readonly protocols: readonly string[];
        readonly default?: string;
        readonly format: string;
      }
    /** 32 bytes in base64. */
    | { readonly type: 'key' }
    | { readonly type: 'choice'; readonly values: readonly string[]; readonly default: string }
    | { readonly type: 'flag'; readonly default: boolean }
  );

const SERVERS = ['api', 'projector', 'executor', 'delivery', 'chain'] as const;
const EVERY = ['embedded', ...SERVERS, 'replay'] as const;
/** The processes that open the event log and Redis. */
const LOG_READERS = ['api', 'projector', 'executor', 'delivery', 'replay'] as const;
/** The processes that know the chain's tokens (env.chain). */
const CHAIN_READERS = ['api', 'projector', 'executor', 'replay'] as const;
const API = ['embedded', 'api'] as const;
const WEBHOOKS = ['embedded', 'api', 'delivery'] as const;
/** Processes that make outside HTTPS requests through the SSRF guard: webhooks, and x402 resources. */
const OUTBOUND = ['embedded', 'api', 'executor', 'delivery'] as const;
/** Processes that pay x402 resources (the API asks the price, the executor pays). */
const X402 = ['embedded', 'api', 'executor'] as const;
const CHAIN_NODE = ['chain'] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

export const SETTINGS = {
  PORT: {
    type: 'int',
    processes: ['embedded', ...SERVERS],
    default: { embedded: 8080, api: 8080, projector: 9101, executor: 9102, delivery: 9104, chain: 8899 },
    min: 0,
    max: 65_535,
    meaning:
      'where the process listens (the API for requests; the others for health and metrics); 0: any free port',
  },
  HOST: {
    type: 'text',
    processes: ['embedded', ...SERVERS],
    default: '127.0.0.1',
    meaning: 'the address it listens on',
  },
  LOG_LEVEL: {
    type: 'choice',
    processes: ['embedded', ...SERVERS],
    values: ['error', 'warn', 'info', 'debug', 'silent'],
    default: 'info',
    meaning: 'logs are JSON (winston), with a request id, never a key or a body',
  },
  DATA_DIR: {
    type: 'text',
    processes: ['embedded', 'chain'],
    default: { embedded: './data', chain: './data/chain' },
    meaning:
      'where the state lives: embedded, the event log, the chain, generated secrets and the demo; the chain node, its chain',
  },
  DEMO: {
    type: 'flag',
    processes: ['embedded'],
    default: true,
    meaning: '`false` skips the first-start demo',
  },
  EVENTSTORE_URL: {
    type: 'url',
    processes: LOG_READERS,
    protocols: ['postgres:', 'postgresql:', 'esdb:', 'esdb+discover:'],
    format: '`postgres://user@host:5432/db` or `esdb://host:2113?tls=false`',
    meaning: 'the event log: PostgreSQL, or EventStoreDB / KurrentDB',
  },
  EVENTSTORE_SCHEMA: {
    type: 'text',
    processes: LOG_READERS,
    default: 'tokenops',
    format: 'a lower-case SQL identifier',
    meaning: 'PostgreSQL schema of the log',
  },
  EVENTSTORE_POOL: {
    type: 'int',
    processes: LOG_READERS,
    default: 10,
    min: 1,
    max: 500,
    meaning: 'PostgreSQL connections per process (the server allows 100 in all by default)',
  },
  REDIS_URL: {
    type: 'url',
    processes: LOG_READERS,
    protocols: ['redis:', 'rediss:'],
    format: '`redis://host:6379`',
    meaning: 'read models, the job queue, leases, rate-limit counters',
  },
  REDIS_PREFIX: {
    type: 'text',
    processes: LOG_READERS,
    default: 'tokenops',
    format: 'letters, digits, `_` `.` `-`',
    meaning: 'key prefix: several deployments can share one Redis',
  },
  SOLANA_RPC_URL: {
    type: 'url',
    processes: CHAIN_READERS,
    protocols: ['http:', 'https:'],
    format: '`http://127.0.0.1:8899`, or several comma-separated',
    shown: 'required (API, executor)',
    meaning:
      "Solana JSON-RPC endpoints of one cluster (the local chain node or a cluster's nodes): reads go to the healthiest, transactions to every healthy one; a node that fails, times out or lags is set aside and tried again later (docs/chain-node.md); the WebSocket is the first one's",
  },
  SOLANA_RPC_TIMEOUT_MS: {
    type: 'int',
    processes: CHAIN_READERS,
    default: 30_000,
    min: 100,
    max: 300_000,
    meaning: 'how long a call to an RPC node waits for its answer before the node counts as failing (ms)',
  },
  SOLANA_RPC_MAX_SLOT_LAG: {
    type: 'int',
    processes: CHAIN_READERS,
    default: 50,
    min: 1,
    max: 1_000_000,
    meaning:
      'with several RPC nodes: slots a node may be behind the highest of the others before it is set aside',
  },
  CHAIN_SEED: {
    type: 'text',
    processes: [...CHAIN_READERS, 'chain'],
    default: 'local-chain',
    meaning:
      "the local chain's fixtures (fee payer, mint authority, treasury, mints, pools, venue) derive from it",
  },
  FEE_PAYER_SECRET: {
    type: 'text',
    processes: CHAIN_READERS,
    secret: true,
    format: 'a base58 32-byte ed25519 seed',
    meaning: "a real cluster instead of the local chain: the fee payer's seed",
  },
  TREASURY_ADDRESS: {
    type: 'text',
    processes: CHAIN_READERS,
    shown: 'required with `FEE_PAYER_SECRET`',
    format: 'a base58 address',
    meaning: 'on a cluster, the address that receives the protocol fee',
  },
  TOKENS: {
    type: 'text',
    processes: CHAIN_READERS,
    shown: 'required with `FEE_PAYER_SECRET`',
    format: '`SYMBOL:mint:decimals,...`',
    meaning: 'on a cluster, the token registry; the first is the base token',
  },
  KEY_ENCRYPTION_KEY: {
    type: 'key',
    processes: ['embedded', 'api', 'executor', 'delivery'],
    secret: true,
    shown: {
      embedded: 'generated into `DATA_DIR/secrets.json` (with a warning)',
      api: 'required',
      executor: 'required',
      delivery: 'required',
    },
    meaning:
      'seals agent wallet keys and webhook secrets at rest; the same on every API, executor and delivery worker (`openssl rand -base64 32`)',
  },
  JWT_SECRET: {
    type: 'key',
    processes: API,
    secret: true,
    shown: { embedded: 'generated likewise', api: 'required' },
    meaning: 'signs operator sessions; the same on every API instance',
  },
  ORCHESTRATOR_WALLETS: {
    type: 'text',
    processes: API,
    shown: 'any wallet (with a warning)',
    format: 'comma-separated base58 wallets',
    meaning: 'wallets allowed to create groups',
  },
  OUTCOME_TIMEOUT_MS: {
    type: 'int',
    processes: API,
    default: 30_000,
    min: 1,
    max: 600_000,
    meaning:
      'how long a spend waits for its chain outcome before answering `idempotency_in_progress` (the operation goes on)',
  },
  RATE_LIMIT_PER_MINUTE: {
    type: 'int',
    processes: API,
    default: 60,
    min: 1,
    max: 1_000_000,
    meaning:
      'requests a minute per agent (counted in Redis across instances); past it, 429 `rate_limited` with `Retry-After` and `RateLimit-*` headers',
  },
  VIEW_WAIT_MS: {
    type: 'int',
    processes: API,
    // The views apply the log within milliseconds when the projector runs (tens under load), so 2 s
    // covers a busy projector and a short pause, while a read during an outage still answers (marked
    // stale) within 2 s.
    default: 2_000,
    min: 100,
    max: 60_000,
    meaning:
      "how long a read waits for the views to include the agent's own last write (an operator write: for them to include it); past it the answer is what the views have, with `X-Data-Stale: true` (docs/usage.md); spends never wait",
  },
  UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: {
    type: 'int',
    processes: API,
    default: 30,
    min: 1,
    max: 1_000_000,
    meaning:
      'failed authentications (missing or wrong key, invitation code, wallet signature, operator token) a client address may make in a minute; past it, 429 `rate_limited` with `Retry-After` before anything is looked up',
  },
  PUBLIC_RATE_LIMIT_PER_MINUTE: {
    type: 'int',
    processes: API,
    // An agent reads the reference (tokens, venues, pools) now and then, a console a few times a
    // page; 600 a minute (10 a second) from one address is far past that for a fleet behind one
    // egress, and stops a flood.
    default: 600,
    min: 1,
    max: 1_000_000,
    meaning:
      'requests a minute per client address to the public reads (`/tokens`, `/venues`, `/pools`); past it, 429 `rate_limited` with `Retry-After` and `RateLimit-*` headers',
  },
  SIGN_IN_RATE_LIMIT_PER_MINUTE: {
    type: 'int',
    processes: API,
    // An operator signs in once an hour (two requests: challenge, token); a fleet registers its agents
    // once each. 120 a minute from one address registers a fleet of hundreds within minutes (the
    // refusals say when to go on) and holds a flood of challenges or codes to 2 a second.
    default: 120,
    min: 1,
    max: 1_000_000,
    meaning:
      "requests a minute per client address to the sign-in routes (registration with an invitation code, a wallet's challenge and token); past it, 429 `rate_limited` with `Retry-After` and `RateLimit-*` headers",
  },
  OPERATOR_RATE_LIMIT_PER_MINUTE: {
    type: 'int',
    processes: API,
    // The console loads a page with a handful of requests and follows the events on one stream; 600 a
    // minute (10 a second) for one wallet is far past a person at it or a script of an operator.
    default: 600,
    min: 1,
    max: 1_000_000,
    meaning:
      "requests a minute per signed-in wallet (an operator's, an auditor's) to the operator routes (counted in Redis across instances); past it, 429 `rate_limited` with `Retry-After` and `RateLimit-*` headers",
  },
  TRUST_PROXY_HOPS: {
    type: 'int',
    processes: API,
    default: 0,
    min: 0,
    max: 10,
    meaning:
      'proxies in front of the API whose `X-Forwarded-For` names the client (for the limits per client address above); set it behind a load balancer, or every client shares its address',
  },
  METRICS_PORT: {
    type: 'int',
    processes: API,
    default: 0,
    min: 0,
    max: 65_535,
    meaning: 'serve `/metrics` (with `/healthz`, `/readyz`) on a port of its own, apart from the API; 0: not',
  },
  METRICS_HOST: {
    type: 'text',
    processes: API,
    default: '127.0.0.1',
    meaning: 'the address of `METRICS_PORT`',
  },
  METRICS_TOKEN: {
    type: 'text',
    processes: API,
    secret: true,
    format: '16 characters or more',
    meaning:
      "serve `/metrics` on the API's port to `Authorization: Bearer <METRICS_TOKEN>` only; with neither this nor `METRICS_PORT`, metrics are not served",
  },
  CHECK_RESPONSES: {
    type: 'flag',
    processes: ['api'],
    default: false,
    meaning:
      'tests: every answer is checked against the contract schema before it leaves (a mismatch is a 500)',
  },
  EXECUTOR_CONCURRENCY: {
    type: 'int',
    processes: ['embedded', 'executor'],
    // Embedded, a job's waits are its turns at the one database and the one thread: more at once share
    // them (docs/performance.md: 32 clients made 326-328 transfers/s with 8 at once, 343-397 with 64).
    default: { embedded: 64, executor: 16 },
    min: 1,
    max: 256,
    meaning: 'jobs in flight per executor (embedded: in the one process)',
  },
  EXECUTOR_LOCK_MS: {
    type: 'int',
    processes: ['executor'],
    default: 3_000,
    min: 1_000,
    max: TAKEOVER.maxJobLockMs,
    meaning:
      "a job's BullMQ lock, renewed every third of it: a dead executor's jobs move to another within 10 s whatever it is (docs/operations.md, Fail-over bounds); a pause longer than two thirds of it hands them on too",
  },
  EXECUTOR_RETRY_ATTEMPTS: {
    type: 'int',
    processes: ['embedded', 'executor'],
    default: DEFAULT_RETRY.attempts,
    min: 1,
    max: 30,
    meaning: `a job's attempts in all, retried with backoff from ${DEFAULT_RETRY.backoffMs} ms doubling, each delay between ${Math.round((1 - DEFAULT_RETRY.jitter) * 100)} % and all of it at random: with ${DEFAULT_RETRY.attempts}, a job's last attempt comes ${seconds(DEFAULT_SPAN.minMs)} to ${seconds(DEFAULT_SPAN.maxMs)} s after its first, ${seconds(DEFAULT_SPAN.medianMs)} s at the median (the sum of its delays); a job that ran out of them because the chain did not answer runs again once it answers (\`CHAIN_RECOVERY_INTERVAL_MS\`)`,
  },
  PRIORITY_FEE: {
    type: 'text',
    processes: ['embedded', 'executor', 'api'],
    default: 'auto',
    format: '`auto`, `off` or micro-lamports per compute unit (`25000`)',
    meaning:
      'the compute-unit price of every transaction the service sends (the spends of the executor, the emergency sweeps of the API): `auto` offers PRIORITY_FEE_PERCENTILE of getRecentPrioritizationFees over the accounts it writes (0 on a quiet chain, the local one among them), at most PRIORITY_FEE_MAX_MICROLAMPORTS; a number is that price; `off` sets none (a congested cluster then drops it first)',
  },
  PRIORITY_FEE_PERCENTILE: {
    type: 'int',
    processes: ['embedded', 'executor', 'api'],
    default: DEFAULT_COMPUTE_BUDGET.percentile,
    min: 0,
    max: 100,
    meaning:
      "with PRIORITY_FEE=auto: the percentile of the recent slots' fees offered (75: a price at least three slots in four landed at)",
  },
  PRIORITY_FEE_MAX_MICROLAMPORTS: {
    type: 'int',
    processes: ['embedded', 'executor', 'api'],
    default: Number(DEFAULT_COMPUTE_BUDGET.maxMicroLamports),
    min: 0,
    max: 1_000_000_000_000,
    meaning:
      'with PRIORITY_FEE=auto: the most it offers, micro-lamports per compute unit (a transfer of about 30,000 units then pays at most 0.00003 SOL above the base fee)',
  },
  COMPUTE_UNIT_MARGIN_PERCENT: {
    type: 'int',
    processes: ['embedded', 'executor', 'api'],
    default: DEFAULT_COMPUTE_BUDGET.marginPercent,
    min: 0,
    max: 100,
    meaning:
      'what the compute-unit limit adds to what a simulation of the transaction consumed (one simulation per shape of transaction, and each transaction that creates a token account); without a simulation the limit is 200,000 units an instruction',
  },
  CHAIN_RECOVERY_INTERVAL_MS: {
    type: 'int',
    processes: ['executor'],
    default: 5_000,
    min: 100,
    max: 600_000,
    meaning:
      'how often each executor counts the jobs that died while the chain did not answer and, once it answers, puts them back in the queue with fresh attempts',
  },
  PAYMENT_WATCH_INTERVAL_MS: {
    type: 'int',
    processes: ['embedded', 'executor'],
    default: 2_000,
    min: 100,
    max: 600_000,
    meaning:
      "how often the payment watcher (embedded, in the process; else one executor, under its lease) asks the chain for payments into the agent token accounts it was told were touched (over the node's WebSocket, `logsSubscribe`), and records them (`payment.received`)",
  },
  PAYMENT_SWEEP_INTERVAL_MS: {
    type: 'int',
    processes: ['embedded', 'executor'],
    default: 60_000,
    min: 1_000,
    max: DAY_MS,
    meaning:
      "how often the payment watcher asks about every agent's token accounts, touched or not (what a lost notification missed)",
  },
  AGGREGATOR_TIMEOUT_MS: {
    type: 'int',
    processes: ['api', 'executor'],
    default: 5_000,
    min: 100,
    max: 60_000,
    meaning:
      'a quote or a swap build (retries included) that takes longer is `502 aggregator_unavailable` (nothing reserved)',
  },
  JUPITER_API_URL: {
    type: 'url',
    processes: ['api', 'executor'],
    protocols: ['https:', 'http:'],
    default: 'https://api.jup.ag/swap/v1',
    format: "Jupiter's Swap API v1",
    meaning:
      "on a cluster, swaps go through Jupiter's Swap API v1 (tested against a local server answering its documented shapes only)",
  },
  JUPITER_API_KEY: {
    type: 'text',
    processes: ['api', 'executor'],
    secret: true,
    meaning: "Jupiter's API key, sent as `x-api-key`, never logged",
  },
  WEBHOOK_DATABASE_URL: {
    type: 'url',
    processes: ['api', 'delivery'],
    protocols: ['postgres:', 'postgresql:'],
    format: '`postgres://…`',
    shown: "the event log's database (required when the log is EventStoreDB)",
    meaning: 'PostgreSQL for webhook subscriptions, deliveries and attempts (tables `webhook_*`)',
  },
  WEBHOOK_DATABASE_SCHEMA: {
    type: 'text',
    processes: ['api', 'delivery'],
    default: 'tokenops',
    shown: "`tokenops` with `WEBHOOK_DATABASE_URL`; without it, the event log's schema",
    meaning: 'the schema of the `webhook_*` tables',
  },
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: {
    type: 'text',
    processes: OUTBOUND,
    shown: 'empty',
    format:
      'comma-separated entries, each `host` or `host:port` (a name or an address; an IPv6 address with a port in brackets, `[::1]:8443`; no scheme, no path)',
    meaning:
      "hosts webhooks and x402 resources may reach although they are private (development, tests; a warning is logged): `host:port` opens that port only, a bare `host` every port of it (the service's own API and chain ports too, where they listen there: prefer `host:port`); otherwise a webhook URL (at registration and at every connection) and an x402 resource (at every connection) must resolve to public addresses only",
  },
  WEBHOOK_CA_FILE: {
    type: 'text',
    processes: OUTBOUND,
    format: 'a PEM file',
    meaning: "CA certificates trusted for webhook deliveries and x402 resources, besides Node's own",
  },
  CHAIN_RPC_PORT: {
    type: 'int',
    processes: ['embedded'],
    default: 0,
    min: 0,
    max: 65_535,
    meaning:
      'the embedded chain served over Solana JSON-RPC (and its WebSocket) on 127.0.0.1 whatever HOST is, as the chain node serves it, so an x402 facilitator can simulate and settle on it (docs/x402.md); 0: any free port (the URL is logged)',
  },
  X402_NETWORK: {
    type: 'text',
    processes: X402,
    default: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    format: "a CAIP-2 id of a Solana cluster x402 knows (mainnet's, devnet's or testnet's)",
    meaning:
      "the network the service pays x402 resources on (docs/x402.md): a requirement on another network is refused; the default is devnet's id, which the local chain stands in for",
  },
  WEBHOOK_RETRY_BASE_MS: {
    type: 'int',
    processes: WEBHOOKS,
    default: DEFAULT_DELIVERY_RETRY.baseMs,
    min: 100,
    max: DAY_MS,
    meaning:
      "a failed delivery's n-th retry waits between half and all of base × 2^(n-1), at most an hour, until `WEBHOOK_RETRY_FOR_MS` has passed",
  },
  WEBHOOK_RETRY_FOR_MS: {
    type: 'int',
    processes: WEBHOOKS,
    default: DEFAULT_DELIVERY_RETRY.forMs,
    min: 60_000,
    max: 30 * DAY_MS,
    meaning: 'how long a delivery is retried (3 days by default); then it is dead',
  },
  WEBHOOK_CONCURRENCY: {
    type: 'int',
    processes: WEBHOOKS,
    default: 64,
    min: 1,
    max: 1_024,
    meaning: 'delivery attempts in flight per process; one subscription holds at most 4 of them',
  },
  SLOT_MS: {
    type: 'int',
    processes: ['embedded', ...CHAIN_NODE],
    default: 400,
    min: 10,
    max: 10_000,
    meaning:
      'how often a slot passes on the local chain (the chain node, or the embedded chain), each with a new blockhash valid for 150 slots',
  },
  WS_PORT: {
    type: 'int',
    processes: CHAIN_NODE,
    default: 0,
    min: 0,
    max: 65_535,
    meaning:
      'a second port for its WebSocket (signature subscriptions), as a validator serves it on `PORT` + 1; it always answers on `PORT` too (0: there only)',
  },
  VENUE_APY_BPS: {
    type: 'int',
    processes: CHAIN_NODE,
    default: 500,
    min: 0,
    max: 100_000,
    meaning:
      "the local lending venue's yearly rate (basis points), fixed on chain when the venue is created at the first start",
  },
  CHAIN_HISTORY: {
    type: 'int',
    processes: CHAIN_NODE,
    default: 50_000,
    min: 1,
    max: 10_000_000,
    meaning:
      'transactions whose history the chain node keeps (which the payment watcher reads), in `DATA_DIR/chain.bin.history` across restarts; a payment is missed only if more than this many land while no watcher runs',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    type: 'text',
    processes: EVERY,
    format: 'a URL',
    meaning:
      'tracing: set, spans are exported over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`; unset, nothing is traced (docs/operations.md, Tracing)',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    type: 'text',
    processes: EVERY,
    format: 'a URL',
    meaning: 'tracing, as `OTEL_EXPORTER_OTLP_ENDPOINT` but the traces endpoint itself',
  },
  OTEL_SDK_DISABLED: {
    type: 'flag',
    processes: EVERY,
    default: false,
    meaning: '`true` turns tracing off even with an endpoint set',
  },
  OTEL_TRACES_SAMPLER: {
    type: 'text',
    processes: EVERY,
    shown: 'every trace',
    meaning:
      'which intents are traced, read by the OpenTelemetry SDK, e.g. `parentbased_traceidratio`; the other standard `OTEL_*` variables apply too',
  },
  OTEL_TRACES_SAMPLER_ARG: {
    type: 'text',
    processes: EVERY,
    meaning: "the sampler's argument, e.g. `0.2` for one in five",
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
type NamesOf<T extends SettingSpec['type']> = {
  [K in SettingName]: (typeof SETTINGS)[K]['type'] extends T ? K : never;
}[SettingName];
export type IntSetting = NamesOf<'int'>;
export type TextSetting = NamesOf<'text'>;
export type UrlSetting = NamesOf<'url'>;
export type KeySetting = NamesOf<'key'>;
export type FlagSetting = NamesOf<'flag'>;
export type ChoiceSetting = NamesOf<'choice'>;

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** A setting's entry (widened, for readers that look at any of them). */
export const settingSpec = (name: SettingName): SettingSpec => SETTINGS[name];

/** The default a process takes: the one value, or its own where they differ. */
export function defaultFor<T>(
  value: PerProcess<T> | undefined,
  role: ProcessName | undefined,
): T | undefined {
  if (value === undefined || typeof value !== 'object') return value;
  const own = role && (value as { [P in ProcessName]?: T })[role];
  if (own === undefined) throw new Error(`no default for ${role ?? 'a process not named'}`);
  return own;
}
