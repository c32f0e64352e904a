/**
 * CPU time by process, from /proc (Linux): the benchmark's own children by name, and the PostgreSQL
 * and Redis servers by command, so a figure can say where each transfer's CPU went.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** A process's CPU ticks so far (utime + stime); with `reaped`, also its children's that it waited for. */
function ticks(pid: number, file = `/proc/${pid}/stat`, reaped = false): number {
  try {
    const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return reaped ? own + Number(fields[13]) + Number(fields[14]) : own; // + cutime + cstime
  } catch {
    return 0;
  }
}

function command(pid: number, file = `/proc/${pid}/comm`): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

/** CPU milliseconds a process has used so far, all its threads. */
export const processCpuMs = (pid: number): number => ticks(pid) * TICK_MS;

/**
 * CPU milliseconds so far: each named process, plus every `postgres` and `redis-server` process. A
 * PostgreSQL backend that exits takes its CPU with it from the live processes; its postmaster, which
 * waits for it, then counts it among its children's: so each server's own children's time is added,
 * and the figure only grows, however many connections came and went.
 */
export function cpuSnapshot(named: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  if (!existsSync('/proc/self/stat')) return out;
  for (const [name, pid] of Object.entries(named)) out[name] = processCpuMs(pid);
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid) continue;
    const c = command(pid);
    const server = c.startsWith('postgres') ? 'postgres' : c.startsWith('redis-server') ? 'redis' : undefined;
    if (server) out[server] = (out[server] ?? 0) + ticks(pid, undefined, true) * TICK_MS;
  }
  return out;
}

/**
 * CPU milliseconds so far of one process, split into its main thread (the event loop) and its other
 * threads (worker threads, GC helpers, libuv's pool): the main thread's share sets how fast a Node
 * process can go on one core.
 */
export function threadSnapshot(name: string, pid: number): Record<string, number> {
  if (!existsSync(`/proc/${pid}/task`)) return {};
  const out: Record<string, number> = {};
  // Threads by what the runtime names them: V8's workers (garbage collection, compiling), libuv's pool.
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const which =
      Number(tid) === pid
        ? 'main thread'
        : `${command(Number(tid), `/proc/${pid}/task/${tid}/comm`)} threads`;
    const key = `${name}: ${which}`;
    out[key] = (out[key] ?? 0) + ticks(pid, `/proc/${pid}/task/${tid}/stat`) * TICK_MS;
  }
  return out;
}

/**
 * A Markdown table of CPU ms per unit of work between two snapshots. `outside` (CPU ms during the same
 * work, e.g. the load generator's) is listed apart, below the total of the system measured.
 */
export function cpuTable(
  before: Record<string, number>,
  after: Record<string, number>,
  units: number,
  seconds: number,
  outside: Record<string, number> = {},
): string {
  const rows = Object.keys(after)
    .map((k) => ({ k, ms: (after[k] ?? 0) - (before[k] ?? 0) }))
    .sort((a, b) => b.ms - a.ms);
  const total = rows.reduce((n, r) => n + r.ms, 0);
  const row = (k: string, ms: number) =>
    `| ${k} | ${(ms / units).toFixed(2)} | ${Math.round(ms / seconds / 10)} % |`;
  return [
    '| process | CPU ms per confirmed transfer | share of one core |',
    '|---|---|---|',
    ...rows.map((r) => row(r.k, r.ms)),
    row('all', total),
    ...Object.entries(outside).map(([k, ms]) => row(`${k} (not in all)`, ms)),
  ].join('\n');
}

/**
 * The machine's CPU time so far, in ms over all cores (/proc/stat): busy (all but idle and iowait,
 * steal included) and, of it, stolen (a virtual machine's cores run by the host for someone else).
 */
export function machineTimes(): { busyMs: number; stealMs: number } {
  if (!existsSync('/proc/stat')) return { busyMs: 0, stealMs: 0 };
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return { busyMs: (user + nice + system + irq + softirq + steal) * TICK_MS, stealMs: steal * TICK_MS };
}

/** The machine's busy CPU time so far, in ms over all cores (`machineTimes().busyMs`). */
export const machineBusyMs = (): number => machineTimes().busyMs;
