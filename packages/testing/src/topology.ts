/**
 * The server topology as separate processes, for integration tests and the benchmark: the chain node,
 * projectors, executors and API instances, each spawned with `node bin/start.js <role>` and configured
 * by its environment, on the machine's PostgreSQL (a fresh schema) and Redis (a fresh key prefix).
 * Processes can be killed (SIGKILL, SIGTERM) and started again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { RedisReadModelStore } from '@tokenops/shared/adapters';
import { dropSchema } from './servers';
import { freePort } from './ports';

const ROOT = resolve(__dirname, '../../..');
/** The processes bin/start.js starts (each its entry point, as the node process itself). */
export const ROLES = ['chain', 'projector', 'executor', 'api', 'delivery', 'replay', 'embedded'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Runs a process the way docs/operations.md does (`node bin/start.js <role>`) in the checkout `root`
 * (this one unless told), stdout and stderr piped.
 */
function spawnEntry(role: Role, env: NodeJS.ProcessEnv, args: string[] = [], root = ROOT): ChildProcess {
  // NODE_ARGS: extra flags for node itself (e.g. --cpu-prof, which NODE_OPTIONS does not take).
  const flags = env.NODE_ARGS ? env.NODE_ARGS.split(' ') : [];
  return spawn(process.execPath, [...flags, 'bin/start.js', role, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export { freePort };

export class Proc {
  child: ChildProcess | undefined;
  readonly url: string;
  private exited: Promise<number | null> = Promise.resolve(null);
  private spawnError: Error | undefined;

  constructor(
    readonly name: string,
    readonly role: Role,
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logDir: string,
    /** The checkout it runs from: this one, or another (bench/compare.ts runs two side by side). */
    private readonly root = ROOT,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  start(): this {
    const log = createWriteStream(join(this.logDir, `${this.name}.log`), { flags: 'a' });
    const child = spawnEntry(this.role, { ...this.env, PORT: String(this.port) }, [], this.root);
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    this.child = child;
    this.spawnError = undefined;
    this.exited = new Promise((r) => {
      child.once('exit', (code) => r(code));
      // A process that could not be spawned (no such folder, no node) never exits: ready() says why.
      child.once('error', (err) => {
        this.spawnError = err;
        r(null);
      });
    });
    return this;
  }

  /** Resolves once `/readyz` answers 200 (the chain node: once it answers JSON-RPC). */
  async ready(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.spawnError) throw new Error(`${this.name} did not start: ${this.spawnError.message}`);
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined)
        throw new Error(
          `${this.name} exited with ${this.child.exitCode}; see ${join(this.logDir, `${this.name}.log`)}`,
        );
      const ok = await fetch(`${this.url}/readyz`)
        .then((r) => r.status === 200)
        .catch(() => false);
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${this.name} was not ready in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Starts the process again (same name, port and settings) and waits until it is ready. */
  async restart(): Promise<void> {
    await this.kill('SIGKILL');
    await this.start().ready();
  }

  /** Sends a signal and waits for the process to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    if (!this.child || this.child.exitCode !== null || this.spawnError) return this.child?.exitCode ?? null;
    this.child.kill(signal);
    return this.exited;
  }
}

export interface TopologyOptions {
  apis?: number;
  executors?: number;
  projectors?: number;
  /** Delivery workers (webhooks): none unless asked. */
  deliveries?: number;
  databaseUrl?: string;
  redisUrl?: string;
  /** Extra environment for every process (EXECUTOR_LOCK_MS, RATE_LIMIT_PER_MINUTE, …). */
  env?: Record<string, string>;
}

export class Topology {
  readonly procs: Proc[] = [];
  readonly logDir = mkdtempSync(join(tmpdir(), 'tokenops-topology-'));
  readonly schema = `topo_${randomBytes(4).toString('hex')}`;
  readonly prefix = `topo-${randomBytes(4).toString('hex')}`;
  readonly env: NodeJS.ProcessEnv;
  chain!: Proc;
  private readonly started: Partial<Record<Role, number>> = {};

  constructor(readonly options: TopologyOptions = {}) {
    this.env = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      EVENTSTORE_URL:
        options.databaseUrl ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      EVENTSTORE_SCHEMA: this.schema,
      REDIS_URL: options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: this.prefix,
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      JWT_SECRET: randomBytes(32).toString('base64'),
      CHAIN_SEED: `seed-${randomBytes(4).toString('hex')}`,
      DATA_DIR: join(this.logDir, 'chain'),
      SLOT_MS: '100',
      ...options.env,
    };
  }

  /** Each process running now, by name: its pid (for /proc readings). */
  pids(): Record<string, number> {
    return Object.fromEntries(this.procs.flatMap((p) => (p.child?.pid ? [[p.name, p.child.pid]] : [])));
  }

  get apis(): Proc[] {
    return this.procs.filter((p) => p.role === 'api');
  }
  byRole(role: Role): Proc[] {
    return this.procs.filter((p) => p.role === role);
  }

  /** Adds and starts a process of `role` (with extra environment), and waits until it is ready. */
  async add(role: Role, env: Record<string, string> = {}): Promise<Proc> {
    const n = (this.started[role] = (this.started[role] ?? 0) + 1);
    const proc = new Proc(`${role}-${n}`, role, await freePort(), { ...this.env, ...env }, this.logDir);
    this.procs.push(proc);
    await proc.start().ready();
    return proc;
  }

  /**
   * Starts the chain node, then the other processes together. If one of them cannot start, the
   * topology is destroyed (every process it started stopped, its schema and keys dropped) before the
   * error is thrown: a caller that never got the topology has nothing left to clean up.
   */
  async start(): Promise<this> {
    try {
      this.chain = new Proc('chain', 'chain', await freePort(), this.env, this.logDir);
      this.procs.push(this.chain);
      await this.chain.start().ready();
      this.env.SOLANA_RPC_URL = this.chain.url;
      const o = this.options;
      const starts = await Promise.allSettled([
        ...Array.from({ length: o.projectors ?? 1 }, () => this.add('projector')),
        ...Array.from({ length: o.executors ?? 2 }, () => this.add('executor')),
        ...Array.from({ length: o.apis ?? 2 }, () => this.add('api')),
        ...Array.from({ length: o.deliveries ?? 0 }, () => this.add('delivery')),
      ]);
      const failed = starts.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      return this;
    } catch (err) {
      await this.destroy().catch(() => undefined);
      throw err;
    }
  }

  /** Starts a one-off command of the topology (the replay): kill it, or wait for its exit code and output. */
  launch(
    role: Role,
    args: string[] = [],
  ): { kill(): void; done: Promise<{ code: number | null; output: string }> } {
    const child = spawnEntry(role, this.env, args);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    return {
      kill: () => child.kill('SIGKILL'),
      done: new Promise((r) => child.once('exit', (code) => r({ code, output }))),
    };
  }

  run(role: Role, args: string[] = []): Promise<{ code: number | null; output: string }> {
    return this.launch(role, args).done;
  }

  async stop(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.kill('SIGTERM')));
  }

  /** Stops every process, then drops the schema and the keys the topology used. */
  async destroy(): Promise<void> {
    await this.stop();
    await dropSchema(this.schema, this.env.EVENTSTORE_URL);
    const redis = new Redis(this.env.REDIS_URL!);
    await new RedisReadModelStore(redis, this.prefix).clear(); // every key under the prefix
    redis.disconnect();
  }
}
