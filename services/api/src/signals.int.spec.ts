/**
 * An operator's signals reach the process: started the documented way (`node bin/start.js <process>`,
 * or `npm run --silent start:<process>`), the PID the operator gets is the node process running the
 * entry point (or npm with that process as its only child, the script exec'd), SIGTERM to that PID
 * stops it gracefully and leaves nothing running, and everything it wrote is JSON lines. The chain
 * node stands for every entry point (they share bin/start.js and runProcess) as it needs no server.
 * A stop with an operator's console open: the embedded default ends the console's event stream at
 * once and exits 0, well within the 30 s grace bound (docs/operations.md, Signals); an API instance
 * does the same in faults.topology.spec.ts, on a topology that suite starts anyway.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import bs58 from 'bs58';
import { generateSigner } from '@tokenops/shared';
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

  async function run(command: string, args: string[], env: Record<string, string> = {}, readyMs = 30_000) {
    const port = await freePort();
    const child: ChildProcess = spawn(command, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        ...env,
      },
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
    try {
      await until(ready, readyMs, 'ready');
    } catch (err) {
      child.kill('SIGKILL'); // nothing left running by a test that failed
      throw err;
    }
    return { pid: child.pid!, url: `http://127.0.0.1:${port}`, exited, output: () => output };
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

  it('node bin/start.js embedded, a console’s event stream open: SIGTERM ends the stream at once and the process exits 0', async () => {
    // It creates its database at its first start: slow on a busy machine.
    const started = await run(process.execPath, ['bin/start.js', 'embedded'], { DEMO: 'false' }, 90_000);
    try {
      const stream = await openEventStream(started.url);
      const signalled = Date.now();
      process.kill(started.pid, 'SIGTERM');
      expect(await stream.ended).toBe('ended'); // ended by the service, not cut by the process's exit
      expect(await started.exited).toEqual({ code: 0, signal: null });
      // Before, it waited for the stream until the operator's token expired (an hour).
      expect(Date.now() - signalled).toBeLessThan(10_000);
      const said = jsonLines(started.output()).map((l) => l.message);
      expect(said).toEqual(expect.arrayContaining(['stopping', 'stopped']));
      expect(said).not.toContain('stop took too long: exiting');
    } finally {
      if (alive(started.pid)) process.kill(started.pid, 'SIGKILL');
    }
  }, 120_000);
});

/**
 * An operator signs in on `url`, creates a group and opens its event stream (server-sent events, as the
 * console's live page does); resolves once the first event (`group.created`) arrived. `ended` says how
 * the stream ended: by its end, or cut (the connection broke before it).
 */
async function openEventStream(url: string): Promise<{ ended: Promise<'ended' | 'cut'> }> {
  const operator = generateSigner();
  const post = async <T>(path: string, body: unknown, token?: string): Promise<T> => {
    const res = await fetch(`${url}/api/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const wallet = operator.address;
  const { message } = await post<{ message: string }>('/orchestrator/auth/challenge', { wallet });
  const signature = bs58.encode(operator.sign(Buffer.from(message, 'utf8')));
  const { token } = await post<{ token: string }>('/orchestrator/auth/token', { wallet, message, signature });
  const { group_config_pda: group } = await post<{ group_config_pda: string }>(
    '/orchestrator/groups',
    {},
    token,
  );
  const res = await fetch(`${url}/api/v1/orchestrator/groups/${group}/events`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
  });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended before its first event');
    text += Buffer.from(value).toString('utf8');
  }
  expect(text).toMatch(/^id: .+\nevent: group\.created\n/);
  const ended = (async () => {
    try {
      while (!(await reader.read()).done);
      return 'ended' as const;
    } catch {
      return 'cut' as const;
    }
  })();
  return { ended };
}
