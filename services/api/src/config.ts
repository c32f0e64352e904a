/**
 * Configuration from the environment, checked at start: every problem is reported at once, by name,
 * with what is expected. Secrets that the embedded default may generate are kept in the data folder
 * (mode 0600) and said so in the log.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  Env,
  type KeySetting,
  webhookSettings,
  type WebhookSettings,
  x402Network as readX402Network,
} from '@tokenops/shared/process';
import { executorWiring, type ExecutorWiring } from '@tokenops/executor';
import { readEdgeSettings, type EdgeSettings } from './http/edge-settings';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  logLevel: string;
  keyEncryptionKey: Uint8Array;
  jwtSecret: Uint8Array;
  operatorWallets?: ReadonlySet<string>;
  outcomeTimeoutMs: number;
  rateLimitPerMinute: number;
  edge: EdgeSettings;
  /** WEBHOOK_ALLOWED_PRIVATE_HOSTS, WEBHOOK_CA_FILE, the retry schedule, the concurrency. */
  webhooks: WebhookSettings;
  /** The embedded chain's JSON-RPC port (CHAIN_RPC_PORT; 0: any free port). */
  chainRpcPort: number;
  /** How often a slot passes on the embedded chain (SLOT_MS). */
  slotMs: number;
  /** The network x402 payments are made on (X402_NETWORK). */
  x402Network: string;
  /** EXECUTOR_RETRY_ATTEMPTS, PAYMENT_WATCH_INTERVAL_MS, PAYMENT_SWEEP_INTERVAL_MS: as the executor reads them. */
  executor: ExecutorWiring;
  demo: boolean;
  /** Notes for the log: which secrets were generated. */
  notes: string[];
}

/** Reads the embedded default's configuration; throws ConfigError (from `Env`) listing every problem. */
export function readConfig(vars?: NodeJS.ProcessEnv): Config {
  const env = new Env(vars, 'embedded');
  const notes: string[] = [];
  const { port, host } = env.listenAddress();
  const outcomeTimeoutMs = env.int('OUTCOME_TIMEOUT_MS');
  const rateLimitPerMinute = env.int('RATE_LIMIT_PER_MINUTE');
  const edge = readEdgeSettings(env);
  const webhooks = webhookSettings(env);
  const chainRpcPort = env.int('CHAIN_RPC_PORT');
  const slotMs = env.int('SLOT_MS');
  const x402Network = readX402Network(env);
  const executor = executorWiring(env);
  const dataDir = resolve(env.text('DATA_DIR'));
  const logLevel = env.logLevel();
  const demo = env.flag('DEMO');
  const wallets = env.wallets('ORCHESTRATOR_WALLETS');

  // Unlike the server processes, a secret that is not set is generated once and kept in DATA_DIR.
  const secret = (name: KeySetting): Uint8Array => {
    const raw = env.raw(name);
    if (raw) return env.secretBytes(name, raw);
    const file = join(dataDir, 'secrets.json');
    const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
    if (!stored[name]) {
      stored[name] = randomBytes(32).toString('base64');
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
      notes.push(`${name} is not set: generated one into ${file} (set ${name} in production)`);
    } else notes.push(`${name} is not set: using the one in ${file}`);
    return Buffer.from(stored[name]!, 'base64');
  };
  const keyEncryptionKey = secret('KEY_ENCRYPTION_KEY');
  const jwtSecret = secret('JWT_SECRET');
  env.check();
  return {
    host,
    port,
    dataDir,
    logLevel,
    keyEncryptionKey,
    jwtSecret,
    ...(wallets && { operatorWallets: wallets }),
    outcomeTimeoutMs,
    rateLimitPerMinute,
    edge,
    webhooks,
    chainRpcPort,
    slotMs,
    x402Network,
    executor,
    demo,
    notes,
  };
}
