/**
 * Configuration from the environment, checked at start: every problem is reported at once, by name,
 * with what is expected. Secrets that the embedded default may generate are kept in the data folder
 * (mode 0600) and said so in the log.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isAddress } from '@tokenops/shared';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  logLevel: string;
  keyEncryptionKey: Uint8Array;
  jwtSecret: Uint8Array;
  orchestratorWallets?: ReadonlySet<string>;
  outcomeTimeoutMs: number;
  demo: boolean;
  /** Notes for the log: which secrets were generated. */
  notes: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const notes: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      problems.push(`${name}=${raw}: expected a whole number from ${min} to ${max}`);
    return n;
  };
  const port = int('PORT', 8080, 0, 65535);
  const outcomeTimeoutMs = int('OUTCOME_TIMEOUT_MS', 30_000, 100, 600_000);
  const dataDir = resolve(env.DATA_DIR || './data');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['error', 'warn', 'info', 'debug', 'silent'].includes(logLevel))
    problems.push(`LOG_LEVEL=${logLevel}: expected error, warn, info, debug or silent`);
  const demo = (env.DEMO ?? 'true') !== 'false';

  let wallets: Set<string> | undefined;
  if (env.ORCHESTRATOR_WALLETS) {
    wallets = new Set(
      env.ORCHESTRATOR_WALLETS.split(',')
        .map((w) => w.trim())
        .filter(Boolean),
    );
    for (const w of wallets)
      if (!isAddress(w)) problems.push(`ORCHESTRATOR_WALLETS: ${w} is not a base58 wallet address`);
  }

  const secret = (name: string): Uint8Array => {
    const raw = env[name];
    if (raw) {
      const bytes = Buffer.from(raw, 'base64');
      if (bytes.length !== 32)
        problems.push(
          `${name}: expected 32 bytes in base64 (e.g. \`openssl rand -base64 32\`), got ${bytes.length} bytes`,
        );
      return bytes;
    }
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
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    host: env.HOST || '127.0.0.1',
    port,
    dataDir,
    logLevel,
    keyEncryptionKey,
    jwtSecret,
    ...(wallets && { orchestratorWallets: wallets }),
    outcomeTimeoutMs,
    demo,
    notes,
  };
}
