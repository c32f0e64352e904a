/**
 * What the console says, as pure functions (no DOM, unit-tested in words.unit.spec.ts): the API's
 * field issues in words a person reads, the console's own checks of a field before it is sent,
 * durations and countdowns, when an allow-list entry "expires soon", and the log's CSV.
 */

/** What a field holds, for its checks and for the words of its errors. */
export type FieldKind = 'text' | 'address' | 'amount' | 'integer' | 'number' | 'url' | 'wallets';

/** The field a detail's JSON Pointer names: its last part that is not an array index. */
export function fieldOf(path: string): string | undefined {
  const parts = path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .filter((p) => !/^\d+$/.test(p));
  return parts.at(-1);
}

const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const ADDRESS_WORDS = 'is not a Solana address: an address is 32 to 44 letters and digits (base58)';

/**
 * An issue of the API's error envelope (`must NOT have fewer than 32 characters`, `must resolve to
 * public addresses only (10.1.2.3: private IPv4 address)`) as a phrase a person reads after the
 * field's name.
 */
export function plainIssue(issue: string, kind: FieldKind = 'text'): string {
  let m: RegExpExecArray | null;
  if (kind === 'address' && /characters|pattern|base58|public key/.test(issue)) return ADDRESS_WORDS;
  if (kind === 'wallets' && /characters|pattern|base58|public key/.test(issue))
    return 'names something that is not a wallet address (32 to 44 letters and digits, base58)';
  if ((m = /^must NOT have fewer than (\d+) characters?$/.exec(issue)))
    return `is too short: at least ${m[1]} characters`;
  if ((m = /^must NOT have more than (\d+) characters?$/.exec(issue)))
    return `is too long: at most ${m[1]} characters`;
  if ((m = /^must NOT have fewer than (\d+) items?$/.exec(issue)))
    return m[1] === '1' ? 'needs at least one choice' : `needs at least ${m[1]} choices`;
  if ((m = /^must NOT have more than (\d+) items?$/.exec(issue))) return `takes at most ${m[1]}`;
  if ((m = /^must be >= (-?[\d.]+)$/.exec(issue))) return `must be at least ${m[1]}`;
  if ((m = /^must be > (-?[\d.]+)$/.exec(issue))) return `must be more than ${m[1]}`;
  if ((m = /^must be <= (-?[\d.]+)$/.exec(issue))) return `must be at most ${m[1]}`;
  if ((m = /^must be < (-?[\d.]+)$/.exec(issue))) return `must be less than ${m[1]}`;
  if (issue === 'must be integer') return 'must be a whole number';
  if (issue === 'must be number') return 'must be a number';
  if (issue === 'must be string') return 'must be text';
  if (/^must match format "uri"$/.test(issue)) return 'is not a web address (https://…)';
  if (/^must match format "date-time"$/.test(issue)) return 'is not a date and time';
  if (/^must match pattern/.test(issue)) return 'has characters it may not have';
  if (/^must have required property/.test(issue)) return 'is required';
  if (/^must NOT have duplicate items/.test(issue)) return 'names the same thing twice';
  if ((m = /^must resolve to public addresses only \(([^:]+): (.+)\)$/.exec(issue)))
    return `must reach a public address: it leads to ${m[1]}, a ${m[2]}`;
  if (issue === 'must use https') return 'must start with https://';
  if (issue === 'does not resolve') return 'names a host that does not exist (check the spelling)';
  if (issue === 'is not a valid URL') return 'is not a web address (https://…)';
  return issue;
}

/** A field's name and its issue as one sentence ("Address is too short: …."). */
export const sentence = (label: string, phrase: string): string =>
  `${label} ${phrase}${/[.!?]$/.test(phrase) ? '' : '.'}`;

/** The service's amounts: non-negative, at most 6 decimals, at most u64's in micro-units. */
const DECIMAL = /^\d+(\.\d+)?$/;
const MAX_WHOLE = 18_446_744_073_709n;

/** The console's own check of a field before it is sent: an issue phrase, or undefined. */
export function checkField(
  value: string,
  kind: FieldKind,
  rule: { required?: boolean; positive?: boolean; min?: number; max?: number } = {},
): string | undefined {
  if (value === '') return rule.required ? 'is required' : undefined;
  switch (kind) {
    case 'address':
      return ADDRESS.test(value) ? undefined : ADDRESS_WORDS;
    case 'wallets':
      return value
        .split(/[\s,]+/)
        .filter(Boolean)
        .every((w) => ADDRESS.test(w))
        ? undefined
        : plainIssue('must match pattern', 'wallets');
    case 'amount': {
      if (!DECIMAL.test(value)) return 'must be an amount like 12.5 (digits, and a point for decimals)';
      const [whole, decimals = ''] = value.split('.');
      if (decimals.length > 6) return 'takes at most 6 decimals';
      const units = BigInt(whole!);
      if (units > MAX_WHOLE || (units === MAX_WHOLE && decimals.replace(/0+$/, '') > '551615'))
        return 'is too large';
      if (rule.positive && units === 0n && /^0*$/.test(decimals)) return 'must be more than 0';
      return undefined;
    }
    case 'integer':
    case 'number': {
      const n = Number(value);
      if (!Number.isFinite(n) || value.trim() === '') return 'must be a number';
      if (kind === 'integer' && !Number.isInteger(n)) return 'must be a whole number';
      if (rule.min !== undefined && n < rule.min) return `must be at least ${rule.min}`;
      if (rule.max !== undefined && n > rule.max) return `must be at most ${rule.max}`;
      if (rule.positive && n <= 0) return 'must be more than 0';
      return undefined;
    }
    case 'url': {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return 'is not a web address (https://…)';
      }
      return url.protocol === 'https:' ? undefined : 'must start with https://';
    }
    default:
      return undefined;
  }
}

/**
 * The field an `invalid_amount` refusal is about: its message names it ("The per_tx_limit is not a
 * decimal number …"), when it is one of `fields`.
 */
export function amountFieldOf(message: string, fields: readonly string[]): string | undefined {
  const named = /^The (\w+) /.exec(message)?.[1];
  return named && fields.includes(named) ? named : undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A length of time as a person says it: "30 days", "2 days 4 h", "5 h 30 min", "12 min". */
export function span(ms: number): string {
  const m = Math.round(ms / MINUTE);
  if (m < 60) return m < 1 ? `${Math.max(0, Math.round(ms / 1000))} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? plural(d, 'day') : `${plural(d, 'day')} ${h % 24} h`;
}

/** The time left until `until`, ticking by the second within a day: "1h 59m 58s left", "29 days 23 h left". */
export function countdown(until: string | number, now: number): string {
  const left = (typeof until === 'number' ? until : Date.parse(until)) - now;
  if (left <= 0) return 'expired';
  if (left >= DAY) {
    const h = Math.floor(left / HOUR);
    return `${plural(Math.floor(h / 24), 'day')} ${h % 24} h left`;
  }
  const s = Math.floor(left / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m ${pad(s % 60)}s left`;
}

/** "in 5 min", "3 min ago": a time relative to now. */
export function relative(at: string | number, now: number): string {
  const d = (typeof at === 'number' ? at : Date.parse(at)) - now;
  if (Math.abs(d) < 5_000) return 'now';
  return d > 0 ? `in ${span(d)}` : `${span(-d)} ago`;
}

/** The share of an entry's lifetime left when it "expires soon". */
export const SOON_SHARE = 0.1;

/**
 * Whether an entry expires soon, relative to its own lifetime (added at `added`, expiring at
 * `expires`): a tenth or less of it left. A two-hour entry expires soon in its last 12 minutes, a
 * thirty-day one in its last three days.
 */
export function expiresSoon(added: number, expires: number, now: number): boolean {
  const left = expires - now;
  return left > 0 && left <= (expires - added) * SOON_SHARE;
}

/** A time of day (and the date when it is not today). */
export function clock(at: Date | string | number, now = Date.now()): string {
  const d = new Date(at);
  const today = new Date(now).toDateString() === d.toDateString();
  return today
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export function csvField(value: unknown): string {
  const text =
    value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows as CSV text: the header, then one line a row, CRLF as RFC 4180 says. */
export const csv = (header: readonly string[], rows: readonly unknown[][]): string =>
  [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';

/** A webhook endpoint's health, from its subscription's status and its latest deliveries. */
export interface Health {
  state: 'healthy' | 'failing' | 'disabled' | 'waiting' | 'quiet';
  /** What a person reads: why it fails, how many of the latest failed. */
  text: string;
  /** The latest attempt's error, when the latest delivery failed. */
  error?: string;
  /** When the next attempt is due (ISO 8601), when a failed delivery is retried. */
  next?: string;
}

interface DeliverySummary {
  status: 'pending' | 'delivered' | 'failed' | 'dead' | 'cancelled';
  attempts: number;
  created_at: string;
  next_attempt_at?: string;
  log: { at: string; outcome: string; status_code: number | null; error: string | null }[];
}

/** What an attempt's failure was, in a line: the receiver's status, or the error of the connection. */
export function attemptError(a: {
  status_code: number | null;
  error: string | null;
  outcome: string;
}): string {
  if (a.error && a.status_code) return `answered ${a.status_code}: ${a.error}`;
  if (a.status_code) return `answered ${a.status_code}`;
  return a.error ?? a.outcome;
}

/**
 * An endpoint's health: `disabled` (the service stopped sending, and why), `failing` (its latest
 * attempted delivery failed: how many of the latest failed, the error, the next attempt), `healthy`
 * (its latest attempted delivery arrived), `waiting` (its first delivery is not attempted yet) or
 * `quiet` (nothing sent yet). A subscription whose every delivery fails is never just "active".
 */
export function endpointHealth(
  sub: { status: string; status_reason?: string },
  deliveries: readonly DeliverySummary[],
): Health {
  if (sub.status === 'disabled')
    return {
      state: 'disabled',
      text: `disabled by the service${sub.status_reason ? `: ${sub.status_reason}` : ''}`,
    };
  // Each delivery by its latest attempt, the latest first (a redelivery is attempted again later).
  const attempted = deliveries
    .filter((d) => d.log.length > 0 && d.status !== 'cancelled')
    .map((d) => ({ d, last: d.log.at(-1)! }))
    .sort((a, b) => b.last.at.localeCompare(a.last.at));
  if (attempted.length === 0)
    return deliveries.length > 0
      ? { state: 'waiting', text: 'its first delivery is on its way' }
      : { state: 'quiet', text: 'nothing sent yet' };
  const failed = attempted.filter((a) => a.last.outcome !== 'delivered').length;
  const latest = attempted[0]!;
  if (latest.last.outcome === 'delivered')
    return {
      state: 'healthy',
      text:
        failed === 0
          ? `the last ${attempted.length} delivered`
          : `delivering again (${failed} of the last ${attempted.length} failed)`,
    };
  return {
    state: 'failing',
    text:
      failed === attempted.length
        ? `every delivery fails (the last ${attempted.length})`
        : `the latest delivery failed (${failed} of the last ${attempted.length})`,
    error: attemptError(latest.last),
    ...(latest.d.next_attempt_at && latest.d.status === 'failed' && { next: latest.d.next_attempt_at }),
  };
}

/** The exact sum of decimal texts (amounts as the service writes them), as a decimal text. */
export function sumAmounts(texts: readonly string[]): string {
  const scale = Math.max(0, ...texts.map((t) => t.split('.')[1]?.length ?? 0));
  const units = texts.reduce((sum, t) => {
    const [whole = '0', fraction = ''] = t.split('.');
    return sum + BigInt(whole + fraction.padEnd(scale, '0'));
  }, 0n);
  if (scale === 0) return units.toString();
  const digits = units.toString().padStart(scale + 1, '0');
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  return fraction ? `${digits.slice(0, -scale)}.${fraction}` : digits.slice(0, -scale);
}
