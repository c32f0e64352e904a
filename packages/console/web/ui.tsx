/** What every page uses: loading an answer, a refusal shown, a secret shown once, a group's tabs. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ok } from './api';

/** What the generated client answers. */
type Answer<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

/** An answer of the service, loaded on mount and again on `reload()`; its error as text. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const reload = useCallback(() => {
    load().then(
      (d) => {
        setData(d);
        setError(undefined);
      },
      (err: Error) => setError(err.message),
    );
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, reload };
}

/** Runs an action of the page: busy while it runs, its refusal shown, `done` told its answer. */
export function useAction() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async <T,>(action: () => Promise<T>, done?: (answer: T) => void) => {
    setBusy(true);
    setError(undefined);
    try {
      done?.(await action());
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  /** Runs a call of the API (its refusal shown); `done` is told its answer. */
  const call = <T,>(request: () => Answer<T>, done?: (answer: T) => void) =>
    void run(() => ok(request()), done);
  /** A form's submit handler: its fields (as text) to `request`; the form reset once it succeeded. */
  const submit =
    <T,>(
      request: (f: Record<string, string>, form: HTMLFormElement) => Answer<T>,
      done?: (answer: T) => void,
    ) =>
    (e: Event) => {
      e.preventDefault();
      const form = e.currentTarget as HTMLFormElement;
      call(
        () => request(fields(form), form),
        (answer) => {
          form.reset();
          done?.(answer);
        },
      );
    };
  return { error, busy, run, call, submit };
}

export const Failure = ({ error }: { error?: string | undefined }) =>
  error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : null;

/** A value the service shows once (an invitation code, an API key, a secret): shown, copyable. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="once" role="status">
      <p>
        <strong>{label}</strong> (shown once: copy it now)
      </p>
      <code class="mono secret" data-testid="shown-once">
        {value}
      </code>
      <button
        type="button"
        onClick={() => void navigator.clipboard.writeText(value).then(() => setCopied(true))}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

/** Seconds ticking: the countdowns re-render once a second. */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function countdown(until: string, now: number): string {
  const s = Math.max(0, Math.floor((Date.parse(until) - now) / 1000));
  if (s === 0) return 'expired';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}h ${String(m).padStart(2, '0')}m ${String(s % 60).padStart(2, '0')}s left`;
}

/** A group's pages, one tab each. */
export function GroupTabs({
  group,
  current,
}: {
  group: string;
  current: 'overview' | 'approvals' | 'webhooks' | 'audit';
}) {
  const tab = (name: typeof current, href: string, text: string) => (
    <a href={href} aria-current={name === current ? 'page' : undefined}>
      {text}
    </a>
  );
  const base = `#/groups/${encodeURIComponent(group)}`;
  return (
    <nav aria-label="Group" class="tabs">
      <a href="#/groups">All groups</a>
      {tab('overview', base, 'Overview')}
      {tab('approvals', `${base}/approvals`, 'Approvals')}
      {tab('webhooks', `${base}/webhooks`, 'Webhooks')}
      {tab('audit', `${base}/audit`, 'Audit')}
    </nav>
  );
}

export const Short = ({ id }: { id: string }) => (
  <span class="mono" title={id}>
    {id.length > 12 ? `${id.slice(0, 6)}…${id.slice(-4)}` : id}
  </span>
);

/**
 * A table: its column heads, its rows. It scrolls sideways on a narrow screen, in a region reached by
 * Tab (so a keyboard scrolls it too) named `label`, the table's caption when `caption` is set.
 */
export const Table = ({
  heads,
  label,
  caption = false,
  children,
}: {
  heads: ComponentChildren[];
  label: string;
  caption?: boolean;
  children: ComponentChildren;
}) => (
  <div class="scroll" role="region" aria-label={label} tabIndex={0}>
    <table>
      {caption && <caption>{label}</caption>}
      <thead>
        <tr>
          {heads.map((head, i) => (
            <th key={i} scope="col">
              {head}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);

export const Section = ({ title, children }: { title: string; children: ComponentChildren }) => (
  <section class="card" aria-label={title}>
    <h2>{title}</h2>
    {children}
  </section>
);

/** A form's fields by name, as text (amounts stay decimal strings, never numbers). */
export const fields = (form: HTMLFormElement): Record<string, string> =>
  Object.fromEntries([...new FormData(form).entries()].map(([k, v]) => [k, String(v).trim()]));
