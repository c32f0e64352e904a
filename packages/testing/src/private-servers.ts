/**
 * A PostgreSQL and a Redis server of the machine's own installation, started privately (own port, own
 * data folder) so a test can stop and restart them under load without touching the servers other
 * suites use. Found on Debian at /usr/lib/postgresql/<version>/bin and /usr/bin/redis-server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { freePort } from './ports';
import { setTimeout as sleep } from 'node:timers/promises';

export interface PrivateServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up in ${timeoutMs} ms`);
    await sleep(100);
  }
}

export async function privateRedis(): Promise<PrivateServer> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const ping = async () => {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      return (await r.ping()) === 'PONG';
    } finally {
      r.disconnect();
    }
  };
  const server: PrivateServer = {
    url,
    start: async () => {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
      await until(ping, 'redis');
    },
    stop: async () => {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
    close: () => server.stop(),
  };
  await server.start();
  return server;
}

export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort().pop();
  return version ? join(root, version, 'bin') : undefined;
}

/** PostgreSQL refuses to run as root: the cluster belongs to the `postgres` user when we are root. */
export async function privatePostgres(): Promise<PrivateServer> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL installation under /usr/lib/postgresql');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tokenops-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args, {
      stdio: 'pipe',
    });
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const ctl = (action: string) =>
    run(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      '-w',
      '-m',
      'immediate',
      action,
    ]);
  const ready = async () => {
    const pool = new Pool({ connectionString: url, max: 1 });
    try {
      await pool.query('SELECT 1');
      return true;
    } finally {
      await pool.end();
    }
  };
  const server: PrivateServer = {
    url,
    start: async () => {
      ctl('start');
      await until(ready, 'postgres');
    },
    stop: async () => {
      ctl('stop');
    },
    close: async () => {
      try {
        ctl('stop');
      } catch {
        // already stopped
      }
      execFileSync('rm', ['-rf', dir]);
    },
  };
  await server.start();
  return server;
}
