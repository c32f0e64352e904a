/** Loading the service's answers and running actions: busy and loading states, refusals as text. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ok, Refusal, UNREACHABLE } from '../api';
import { fieldOf, plainIssue, sentence } from '../words';

/**
 * A change that was proposed and signed by the signed-in admin but waits for other admins' signatures
 * (enacted(), signin.tsx): not a failure, told as it is ("Proposed and signed by you (1 of 2 ...").
 */
export const isProposed = (err: unknown): err is Refusal => err instanceof Refusal && err.code === 'proposed';

/** What the generated client answers. */
export type Answer<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

/** A failure as one text a person reads: the fields the service named, in words; an outage said plainly. */
export function failureText(err: unknown): string {
  if (err instanceof Refusal) {
    if (err.code === 'unreachable') return UNREACHABLE;
    if (err.details.length > 0)
      return err.details
        .map((d) => {
          const field = fieldOf(d.path);
          return field
            ? sentence(field.replace(/_/g, ' '), plainIssue(d.issue))
            : sentence('The request', d.issue);
        })
        .join(' ');
    return err.message;
  }
  if (err instanceof TypeError) return UNREACHABLE;
  return err instanceof Error ? err.message : String(err);
}

export interface Load<T> {
  data: T | undefined;
  /** The refusal (or failure) of the last load, while there is one. */
  error: unknown;
  /** True until the first answer (or failure) came. */
  loading: boolean;
  reload(): void;
}

/** An answer of the service, loaded on mount and again on `reload()` (answers that come late are dropped). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Load<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const reload = useCallback(() => {
    const call = ++latest.current;
    load().then(
      (d) => {
        if (call !== latest.current) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (call !== latest.current) return;
        setError(err);
        setLoading(false);
      },
    );
  }, deps);
  useEffect(() => {
    setLoading(true);
    reload();
  }, [reload]);
  return { data, error, loading, reload };
}

/** Runs an action of the page: busy while it runs, its failure shown, `done` told its answer. */
export function useAction() {
  const [error, setError] = useState<string>();
  const [proposed, setProposed] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async <T>(action: () => Promise<T>, done?: (answer: T) => void): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    setProposed(undefined);
    try {
      // Not `done?.(await action())`: an optional call skips its arguments, the action with them.
      const answer = await action();
      done?.(answer);
      return true;
    } catch (err) {
      // A change proposed and waiting for other admins is said as such, not as a failure.
      if (isProposed(err)) setProposed(err.message);
      else setError(failureText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  /** Runs a call of the API (its refusal shown); `done` is told its answer. */
  const call = <T>(request: () => Answer<T>, done?: (answer: T) => void) => run(() => ok(request()), done);
  return { error, proposed, busy, run, call, clear: () => setError(undefined) };
}

/** Seconds ticking: the countdowns re-render once a second (`every` ms). */
export function useNow(every = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), every);
    return () => clearInterval(timer);
  }, [every]);
  return now;
}
