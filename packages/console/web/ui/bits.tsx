/**
 * The small parts every page is made of: a section, a failure, a loading state, a badge, a gauge, an
 * address shown by its name (the address itself on focus and hover, with a copy button), a tile of
 * the overview. A new page composes these and needs no CSS of its own.
 */
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { failureText } from './load';

export const Section = ({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) => (
  <section class="card" aria-label={title}>
    <div class="section-head">
      <h2>{title}</h2>
      {actions && <div class="actions">{actions}</div>}
    </div>
    {children}
  </section>
);

/** A failure (text, a refusal, an error) said in words, announced. */
export const Failure = ({ error }: { error?: unknown }) =>
  error ? (
    <p role="alert" class="error">
      {typeof error === 'string' ? error : failureText(error)}
    </p>
  ) : null;

/** A change proposed and signed by you that waits for other admins' signatures, said as it is. */
export const Proposed = ({ text }: { text?: string | undefined }) =>
  text ? (
    <p role="status" class="notice" data-testid="proposed">
      {text}
    </p>
  ) : null;

/** What shows while an answer is on its way. */
export const Loading = ({ what }: { what: string }) => (
  <p class="loading muted" role="status" aria-busy="true">
    Loading {what}…
  </p>
);

export type Tone = 'good' | 'bad' | 'warn' | 'muted' | 'info';

/** A short status word, coloured by its tone (the word says it: colour is never the only sign). */
export const Badge = ({ tone = 'muted', children }: { tone?: Tone; children: ComponentChildren }) => (
  <span class={`badge ${tone}`}>{children}</span>
);

/** The tone of an agent's, a delivery's or a subscription's status. */
export const TONES: Record<string, Tone> = {
  active: 'good',
  delivered: 'good',
  approved: 'good',
  healthy: 'good',
  confirmed: 'good',
  accepted: 'good',
  invited: 'info',
  pending: 'info',
  ready: 'info',
  executed: 'good',
  held: 'warn',
  failing: 'bad',
  failed: 'bad',
  dead: 'bad',
  blocked: 'bad',
  rejected: 'bad',
  revoked: 'bad',
  disabled: 'bad',
  expired: 'muted',
  cancelled: 'muted',
  deleted: 'muted',
};
export const Status = ({ status }: { status: string }) => <Badge tone={TONES[status]}>{status}</Badge>;

/** A number of a decimal text, for drawing only: what is shown is the service's own text. */
const drawn = (text: string): number => Number(text) || 0;

/**
 * A gauge: `used` of `limit` (decimal texts as the service wrote them), with their unit. Past 80 %
 * it warns, at the limit it says so.
 */
export function Gauge({
  label,
  used,
  limit,
  unit,
  caption,
}: {
  label: string;
  used: string;
  limit: string;
  unit: string;
  caption?: string;
}) {
  const max = drawn(limit);
  const share = max > 0 ? drawn(used) / max : drawn(used) > 0 ? 1 : 0;
  return (
    <div class={`gauge${share >= 1 ? ' full' : share >= 0.8 ? ' high' : ''}`}>
      {caption && <span class="caption">{caption}</span>}
      <meter
        aria-label={label}
        min={0}
        max={max || 1}
        value={drawn(used)}
        low={max * 0.8}
        high={max * 0.8}
        optimum={0}
      />
      <span data-testid={label}>
        {used} / {limit} {unit}
      </span>
    </div>
  );
}

/** A copy button: the text to the clipboard, "Copied" said once it is there. */
export function Copy({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="small"
      aria-label={label}
      onClick={() =>
        void navigator.clipboard.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        })
      }
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

export const short = (id: string): string => (id.length > 12 ? `${id.slice(0, 4)}…${id.slice(-4)}` : id);

/** Names a person knows addresses by: agents' and allow-list entries' labels, "you" for the wallet signed in. */
export type Names = Record<string, string>;

/**
 * An address by its name (its label, or its first and last characters): focused or hovered, the whole
 * address shows with a copy button; a click keeps it open (on a touch screen there is no hover).
 */
export function Address({ id, names }: { id: string; names?: Names }) {
  const tip = useId();
  const [open, setOpen] = useState(false);
  const name = names?.[id];
  return (
    <span class={`addr${open ? ' open' : ''}`}>
      <button
        type="button"
        class="addr-name"
        aria-describedby={tip}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {name ?? <span class="mono">{short(id)}</span>}
      </button>
      <span class="addr-tip" role="tooltip" id={tip}>
        <code class="mono">{id}</code>{' '}
        <Copy text={id} label={`Copy the address ${name ? `of ${name}` : id}`} />
      </span>
    </span>
  );
}

/** A tile of the overview: a count or a state, and the page where it is acted on. */
export const Tile = ({
  title,
  value,
  href,
  tone = 'muted',
  children,
}: {
  title: string;
  value: ComponentChildren;
  href: string;
  tone?: Tone;
  children?: ComponentChildren;
}) => (
  <a class={`tile ${tone}`} href={href}>
    <span class="tile-title">{title}</span>
    <span class="tile-value">{value}</span>
    {children && <span class="tile-detail">{children}</span>}
  </a>
);
