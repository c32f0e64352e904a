/**
 * An operator's signals reach the process: started the documented way (`node bin/start.js <process>`,
 * or `npm run --silent start:<process>`), the PID the operator gets is the node process running the
 * entry point (or npm with that process as its only child, the script exec'd), SIGTERM to that PID
 * stops it gracefully and leaves nothing running, and everything it wrote is JSON lines. The chain
 * node stands for every entry point (they share bin/start.js and runProcess) as it needs no server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@tokenops/testing/topology';

const ROOT = resolve(__dirname, '../../..');

/** The PIDs whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(d)] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

const commandOf = (pid: number): string[] =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a process started the documented way', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tokenops-signals-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  async function run(command: string, args: string[]) {
    const port = await freePort();
    const child: ChildProcess = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
      child.once('exit', (code, signal) => r({ code, signal })),
    );
    const ready = () =>
      fetch(`http://127.0.0.1:${port}/readyz`)
        .then((r) => r.status === 200)
        .catch(() => false);
    await until(ready, 30_000, 'ready');
    return { pid: child.pid!, exited, output: () => output };
  }

  const jsonLines = (output: string) =>
    output
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        try {
          return JSON.parse(l) as { message?: string };
        } catch {
          throw new Error(`not a JSON line: ${l}`);
        }
      });

  it('node bin/start.js: the PID is the process itself; SIGTERM stops it; its output is JSON lines', async () => {
    const started = await run(process.execPath, ['bin/start.js', 'chain']);
    expect(commandOf(started.pid).slice(1)).toEqual(['bin/start.js', 'chain']);
    expect(childrenOf(started.pid)).toEqual([]);
    process.kill(started.pid, 'SIGTERM');
    expect(await started.exited).toEqual({ code: 0, signal: null });
    expect(alive(started.pid)).toBe(false);
    expect(jsonLines(started.output()).map((l) => l.message)).toEqual(['started', 'stopping', 'stopped']);
  });

  it('npm run --silent start:chain: npm runs the process as its only child and passes SIGTERM on; nothing is left', async () => {
    const started = await run('npm', ['run', '--silent', 'start:chain']);
    const children = childrenOf(started.pid);
    expect(children).toHaveLength(1);
    const node = children[0]!;
    expect(commandOf(node).slice(1)).toEqual(['bin/start.js', 'chain']);
    process.kill(started.pid, 'SIGTERM');
    await started.exited;
    await until(() => !alive(node), 10_000, 'stopped');
    expect(jsonLines(started.output()).map((l) => l.message)).toEqual(['started', 'stopping', 'stopped']);
  });
});
