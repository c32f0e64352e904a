/**
 * Readiness: whether a process can do its work, asked of each dependency it needs (the log, Redis,
 * the chain, the webhook database) with a short timeout, all at once. `/readyz` answers 200
 * `{"status":"ready"}`, or 503 `{"status":"not ready","failing":[...]}` naming the dependencies that
 * did not answer in time, so an operator (or a load balancer's log) sees which one is down.
 */

/** A dependency's name (as `/readyz` reports it) and a cheap question it must answer. */
export type Dependencies = Record<string, () => Promise<unknown>>;

/** How long a dependency may take to answer before it counts as failing. */
export const READINESS_TIMEOUT_MS = 1_500;

/** The names of the dependencies that failed or did not answer within `timeoutMs`; empty when ready. */
export async function failingDependencies(
  dependencies: Dependencies,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<string[]> {
  const answers = await Promise.all(
    Object.entries(dependencies).map(async ([name, ask]) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error('timed out')), timeoutMs);
      });
      try {
        await Promise.race([ask(), late]);
        return undefined;
      } catch {
        return name;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return answers.filter((name): name is string => name !== undefined);
}

/** The `/readyz` answer for the failing dependencies (an empty list: ready). */
export function readinessAnswer(failing: readonly string[]): {
  status: number;
  body: { status: 'ready' } | { status: 'not ready'; failing: string[] };
} {
  return failing.length === 0
    ? { status: 200, body: { status: 'ready' } }
    : { status: 503, body: { status: 'not ready', failing: [...failing] } };
}
