/**
 * Readiness: whether a process can do its work, asked of each dependency it needs (the log, Redis,
 * the chain, the webhook database) with a short timeout, all at once. `/readyz` answers 200
 * `{"status":"ready"}`, or 503 `{"status":"not ready","failing":[...]}` naming the dependencies that
 * did not answer in time, so an operator (or a load balancer's log) sees which one is down. A check
 * may say more, as its answer's (or its failure's) `report`: the chain's names each RPC node, healthy
 * or set aside (`"nodes": {"chain": [...]}`), ready or not.
 */

/** A dependency's name (as `/readyz` reports it) and a cheap question it must answer. */
export type Dependencies = Record<string, () => Promise<unknown>>;

/** How long a dependency may take to answer before it counts as failing. */
export const READINESS_TIMEOUT_MS = 1_500;

/** What a check may answer, or fail with, besides whether it passed: shown under `nodes` by its name. */
export interface Reported {
  report: unknown;
}

const reportOf = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && 'report' in value ? (value as Reported).report : undefined;

export interface Assessment {
  /** The dependencies that failed or did not answer in time; empty when ready. */
  failing: string[];
  /** What the checks that said more reported, by dependency. */
  reports: Record<string, unknown>;
}

/** Asks every dependency at once, each within `timeoutMs`. */
export async function assessDependencies(
  dependencies: Dependencies,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<Assessment> {
  const failing: string[] = [];
  const reports: Record<string, unknown> = {};
  await Promise.all(
    Object.entries(dependencies).map(async ([name, ask]) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error('timed out')), timeoutMs);
      });
      let report: unknown;
      try {
        report = reportOf(await Promise.race([ask(), late]));
      } catch (err) {
        failing.push(name);
        report = reportOf(err);
      } finally {
        clearTimeout(timer);
      }
      if (report !== undefined) reports[name] = report;
    }),
  );
  return { failing, reports };
}

/** The names of the dependencies that failed or did not answer within `timeoutMs`; empty when ready. */
export async function failingDependencies(
  dependencies: Dependencies,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<string[]> {
  return (await assessDependencies(dependencies, timeoutMs)).failing;
}

type ReadinessBody = ({ status: 'ready' } | { status: 'not ready'; failing: string[] }) & {
  nodes?: Record<string, unknown>;
};

/** The `/readyz` answer for an assessment (or the failing dependencies alone; an empty list: ready). */
export function readinessAnswer(assessment: readonly string[] | Assessment): {
  status: number;
  body: ReadinessBody;
} {
  const { failing, reports } = Array.isArray(assessment)
    ? { failing: assessment as readonly string[], reports: {} }
    : (assessment as Assessment);
  const nodes = Object.keys(reports).length > 0 ? { nodes: reports } : {};
  return failing.length === 0
    ? { status: 200, body: { status: 'ready', ...nodes } }
    : { status: 503, body: { status: 'not ready', failing: [...failing], ...nodes } };
}
