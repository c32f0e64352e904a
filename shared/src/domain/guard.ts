/**
 * The guard (design.md, "The guard"): rules an operator sets on a group that notice an agent behaving
 * unlike itself, and hold its spend for approval or freeze it. Pure: the rules, the history of the
 * agent they read (folded from its stream), what trips, and which changes of the rules loosen them.
 * No I/O and no clock: `now` comes in; the local time of `quiet_hours` is read with Intl.
 *
 * The rules (the wire shape is this shape, snake_case; events and the API carry it as is):
 *
 *   velocity {factor, min_count}    spends in the last hour, this one included, above factor x the
 *                                   agent's usual hourly count, and at least min_count of them
 *   burst {window_seconds, fraction} value in the window, this spend included, above fraction x the
 *                                   agent's daily limit (strictly above)
 *   new_counterparty                the agent's first spend to an allow-list entry (types 1 and 2)
 *   new_token                       the agent's first spend of a mint
 *   refusals {count, window_seconds} that many spends refused by a policy check (a 403) in the window,
 *                                   the refusal judged included: freezes the agent (its only action)
 *   quiet_hours {from, to, time_zone} a spend whose local time lies in [from, to)
 *
 * Choices where the design is silent, so a reader can check them:
 * - A spend is an accepted intent whose action is not `withdraw`, held ones included.
 * - `velocity` counts every accepted spend, failed ones too (it measures how the agent behaves: an
 *   attempt is behaviour); `burst` counts only those that did not fail (value that can still move).
 * - `velocity`'s usual count: the spends accepted in the 168 hours before `now` (those ahead of it
 *   included, the spend judged not: it is not yet past) over min(168 h, the agent's age), at least one
 *   hour; an agent whose registration the history lacks counts as 168 hours old (the lower usual, the
 *   safe side). The comparison is exact (count x span > factor x baseline x 1 h, in big.js); the
 *   `usual` figure is rounded to 2 decimals for people.
 * - `new_counterparty` and `new_token` both last until one spend to that entry, of that mint, is
 *   confirmed: a spend that failed or was refused moved nothing, so it taught nothing (several spends in
 *   flight to a new entry all trip: the safe side). A confirmed withdrawal is not a spend and teaches
 *   nothing. A spend to another agent of the group (entry type 0) never trips `new_counterparty`.
 * - `refusals` counts `intent.blocked` with a policy code (POLICY_CODES, all 403). Not the freeze codes
 *   (`agent_frozen`, `group_frozen`, 403 too): they refuse by a switch an operator threw, not by a check
 *   of the spend, and counting them would freeze every agent of a frozen group once it is unfrozen.
 * - `quiet_hours` reads the wall clock of `time_zone` to the minute: `from` inclusive, `to` exclusive,
 *   across midnight when `from` > `to`; `from` == `to` is never (an empty interval; a rule for always
 *   would be a freeze). On a day the clock jumps forward the skipped local times never occur, and on a
 *   day it goes back the repeated hour is quiet both times.
 * - `velocity.factor` is a JSON number on the wire (parsed from a number or a decimal string with at
 *   most 6 decimals, 1 to 1,000; such a number's text is exactly what the operator wrote, so big.js
 *   compares it exactly); `burst.fraction` is decimal text (parsed from a number or a string).
 *
 * The history keeps, per clock hour, the times of the spends accepted in the past 168 hours plus an
 * hour of margin for clocks that disagree, and the value of those of the past 24 hours plus that hour;
 * the refusals of the past 25 hours; the open spends (until their outcome, however late); and the
 * entries and mints the agent has spent on, forever (bounded by the allow-list and the token registry).
 * What is kept is measured from the latest event folded: the answers are exact for any `now` no more
 * than an hour before it (guard.unit.spec.ts and guard.property.unit.spec.ts hold them equal to a
 * recount of the raw events).
 */
import Big from 'big.js';
import { Map as PersistentMap, Set as PersistentSet } from 'immutable';
import { POLICY_CODES, validationError, type ValidationDetail } from '../errors';
import type {
  AgentEvent,
  BurstRule,
  EntryType,
  GuardAction,
  GuardRule,
  GuardRuleKind,
  GuardTrip,
  GroupGuardSet,
  QuietHoursRule,
  RefusalsRule,
  VelocityRule,
} from './events';
import { DAY_MS, HOUR_MS } from './time';
import { canonicalJson } from './canonical-json';
import { Sorted } from './sorted';

// ---- the rules (their wire shape lives with the events that carry them) ----

export type {
  BurstRule,
  GuardAction,
  GuardRule,
  GuardRuleKind,
  GuardTrip,
  NewCounterpartyRule,
  NewTokenRule,
  QuietHoursRule,
  RefusalsRule,
  VelocityRule,
} from './events';

/** The spend being judged, as the guard sees it. */
export interface GuardSpend {
  entry_id: string;
  /** The entry's type: a spend to another agent of the group (0) is no new counterparty. */
  entry_type?: EntryType;
  /** The mint the agent spends (a swap: its input). */
  mint: string;
  /** Its value in the group's base token. */
  value: Big;
  now: number;
  /** The agent's daily limit, which `burst` takes its fraction of. */
  daily_limit: Big;
}

const WEEK_MS = 168 * HOUR_MS;
/** What the history keeps past the longest look of a rule: clocks of other instances that disagree. */
const MARGIN_MS = HOUR_MS;
const KEEP_TIMES_MS = WEEK_MS + MARGIN_MS;
const KEEP_VALUES_MS = DAY_MS + MARGIN_MS;

// ---- the history ----

interface SpendItem {
  intentId: string;
  at: number;
  value: Big;
  failed: boolean;
}

/** The spends accepted in one clock hour. */
interface Hour {
  /** `at` / 1 h, rounded down. */
  key: number;
  /** Every spend's time, failed ones too (velocity), in order. */
  ats: Sorted<number>;
  /** The spends with their values, in time order, while the hour is young enough for a burst window. */
  items: Sorted<SpendItem>;
  /** What the items that did not fail add up to. */
  value: Big;
}

/** A spend awaiting its outcome: what its confirmation makes known. */
interface OpenSpend {
  entryId: string;
  mint: string;
  hour: number;
}

/** What the guard knows of one agent: folded from its stream (evolveGuardHistory), never mutated. */
export interface GuardHistory {
  /** When the agent registered. */
  readonly born?: number;
  /** The latest time of an event folded: what is kept is measured from it. */
  readonly latest: number;
  /** By hour, oldest first. */
  readonly hours: readonly Hour[];
  readonly open: PersistentMap<string, OpenSpend>;
  /** Entries and mints of spends that were confirmed. */
  readonly entries: PersistentSet<string>;
  readonly mints: PersistentSet<string>;
  /** Times of the refusals by a policy check, in order. */
  readonly refusals: Sorted<number>;
}

const itself = (n: number) => n;
const NO_TIMES = Sorted.empty<number>(itself);
const NO_ITEMS = Sorted.empty<SpendItem>((s) => s.at);

export const emptyGuardHistory: GuardHistory = {
  latest: Number.NEGATIVE_INFINITY,
  hours: [],
  open: PersistentMap(),
  entries: PersistentSet(),
  mints: PersistentSet(),
  refusals: NO_TIMES,
};

const hourOf = (at: number): number => Math.floor(at / HOUR_MS);
/** Whether all of clock hour `key`, to its last millisecond, lies `keep` or more before `latest`. */
const hourOlderThan = (key: number, latest: number, keep: number): boolean =>
  latest - ((key + 1) * HOUR_MS - 1) >= keep;

const POLICY = new Set<string>(POLICY_CODES);
/** Whether a spend refused with `code` is a refusal by a policy check, which the `refusals` rule counts. */
export const countsAsRefusal = (code: string): boolean => POLICY.has(code);

/** Without what no rule can look at any more, measured from `latest`. */
function pruned(history: GuardHistory): GuardHistory {
  const { latest, hours, refusals } = history;
  // Hours are oldest first: those past the values' keep (the times' is longer) are a prefix, and only
  // they can change. Most spends change none: then nothing is copied.
  let old = 0;
  let changed = false;
  while (old < hours.length && hourOlderThan(hours[old]!.key, latest, KEEP_VALUES_MS)) {
    const hour = hours[old]!;
    if (hour.items.length > 0 || hourOlderThan(hour.key, latest, KEEP_TIMES_MS)) changed = true;
    old += 1;
  }
  const stale = refusals.atOrBefore(latest - KEEP_VALUES_MS);
  // Stryker disable next-line all: a shortcut; the history rebuilt without a change is equal to it
  if (!changed && stale === 0) return history;
  let kept = hours;
  if (changed) {
    const rebuilt: Hour[] = [];
    for (const [i, hour] of hours.entries()) {
      if (i < old && hourOlderThan(hour.key, latest, KEEP_TIMES_MS)) continue;
      rebuilt.push(i < old && hour.items.length > 0 ? { ...hour, items: NO_ITEMS, value: new Big(0) } : hour);
    }
    kept = rebuilt;
  }
  return { ...history, hours: kept, refusals: stale ? refusals.after(latest - KEEP_VALUES_MS) : refusals };
}

const later = (history: GuardHistory, at: number): GuardHistory =>
  at > history.latest ? { ...history, latest: at } : history;

function withSpend(history: GuardHistory, item: SpendItem, entryId: string, mint: string): GuardHistory {
  const key = hourOf(item.at);
  const hours = history.hours.slice();
  let i = hours.length;
  while (i > 0 && hours[i - 1]!.key > key) i -= 1;
  const hour = hours[i - 1]?.key === key ? hours[i - 1]! : undefined;
  const young = !hourOlderThan(key, Math.max(history.latest, item.at), KEEP_VALUES_MS);
  const next: Hour = {
    key,
    ats: (hour?.ats ?? NO_TIMES).with(item.at),
    items: young ? (hour?.items ?? NO_ITEMS).with(item) : (hour?.items ?? NO_ITEMS),
    value: young ? (hour?.value ?? new Big(0)).plus(item.value) : (hour?.value ?? new Big(0)),
  };
  if (hour) hours[i - 1] = next;
  else hours.splice(i, 0, next);
  return { ...history, hours, open: history.open.set(item.intentId, { entryId, mint, hour: key }) };
}

/** The spend `intentId` failed: its value no longer counts. */
function withFailure(history: GuardHistory, intentId: string, hourKey: number): GuardHistory {
  const i = history.hours.findIndex((h) => h.key === hourKey);
  const hour = history.hours[i];
  const j = hour ? hour.items.findIndex((s) => s.intentId === intentId) : -1;
  if (!hour || j < 0) return history;
  const item = hour.items.get(j);
  const items = hour.items.replaced(j, { ...item, failed: true });
  const hours = history.hours.slice();
  hours[i] = { ...hour, items, value: hour.value.minus(item.value) };
  return { ...history, hours };
}

/** The guard's history with one event of the agent's stream folded in. */
export function evolveGuardHistory(history: GuardHistory, event: AgentEvent): GuardHistory {
  switch (event.type) {
    case 'agent.registered':
      return later({ ...history, born: event.data.at }, event.data.at);
    case 'intent.accepted': {
      const d = event.data;
      if (d.action === 'withdraw' || history.open.has(d.intent_id)) return history;
      const item = { intentId: d.intent_id, at: d.at, value: new Big(d.value), failed: false };
      return pruned(later(withSpend(history, item, d.entry_id, d.mint), d.at));
    }
    case 'intent.confirmed': {
      const open = history.open.get(event.data.intent_id);
      if (!open) return history;
      return {
        ...history,
        open: history.open.delete(event.data.intent_id),
        entries: history.entries.add(open.entryId),
        mints: history.mints.add(open.mint),
      };
    }
    case 'intent.failed': {
      const open = history.open.get(event.data.intent_id);
      if (!open) return history;
      const failed = withFailure(history, event.data.intent_id, open.hour);
      return { ...failed, open: history.open.delete(event.data.intent_id) };
    }
    case 'intent.blocked': {
      const d = event.data;
      if (!POLICY.has(d.code)) return history;
      return pruned(later({ ...history, refusals: history.refusals.with(d.at) }, d.at));
    }
    default:
      return history;
  }
}

export const foldGuardHistory = (events: readonly AgentEvent[]): GuardHistory =>
  events.reduce(evolveGuardHistory, emptyGuardHistory);

// ---- what the history answers (a window of span S before now: at > now - S; times ahead count) ----

/** Spends (failed ones too) accepted in the `span` before `now`. */
function spendsIn(history: GuardHistory, now: number, span: number): number {
  const start = now - span;
  const edge = hourOf(start);
  let n = 0;
  for (const hour of history.hours) {
    if (hour.key > edge) n += hour.ats.length;
    else if (hour.key === edge) n += hour.ats.length - hour.ats.atOrBefore(start);
  }
  return n;
}

/** The value of the spends that did not fail, accepted in the `span` before `now` (span <= 24 h). */
function valueIn(history: GuardHistory, now: number, span: number): Big {
  const start = now - span;
  const edge = hourOf(start);
  let value = new Big(0);
  for (const hour of history.hours) {
    if (hour.key > edge) value = value.plus(hour.value);
    else if (hour.key === edge)
      for (const item of hour.items) if (item.at > start && !item.failed) value = value.plus(item.value);
  }
  return value;
}

const refusalsIn = (history: GuardHistory, now: number, span: number): number =>
  history.refusals.length - history.refusals.atOrBefore(now - span);

// ---- the rules judged ----

// Stryker disable all: words for people (a trip's `words`), not a rule: stryker.config.mjs
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "10 minutes", "1 hour", "90 seconds". */
function duration(seconds: number): string {
  if (seconds % 3600 === 0) return plural(seconds / 3600, 'hour', 'hours');
  if (seconds % 60 === 0) return plural(seconds / 60, 'minute', 'minutes');
  return plural(seconds, 'second', 'seconds');
}
// Stryker restore all

function velocityTrip(rule: VelocityRule, spend: GuardSpend, history: GuardHistory): GuardTrip | undefined {
  const count = spendsIn(history, spend.now, HOUR_MS) + 1;
  const baseline = spendsIn(history, spend.now, WEEK_MS);
  const age = history.born === undefined ? WEEK_MS : spend.now - history.born;
  const span = Math.min(WEEK_MS, Math.max(HOUR_MS, age));
  // count > factor x (baseline x 1 h / span), without a division.
  const above = new Big(count).times(span).gt(new Big(String(rule.factor)).times(baseline).times(HOUR_MS));
  if (!above || count < rule.min_count) return undefined;
  const usual = new Big(baseline).times(HOUR_MS).div(span).round(2).toFixed();
  return {
    rule: 'velocity',
    action: rule.action,
    figures: { count, usual, factor: rule.factor, min_count: rule.min_count },
    words: `${plural(count, 'spend', 'spends')} in the last hour, usually ${usual} an hour: above ${rule.factor} x usual`,
  };
}

function burstTrip(rule: BurstRule, spend: GuardSpend, history: GuardHistory): GuardTrip | undefined {
  const value = valueIn(history, spend.now, rule.window_seconds * 1000).plus(spend.value);
  const threshold = spend.daily_limit.times(rule.fraction);
  if (!value.gt(threshold)) return undefined;
  return {
    rule: 'burst',
    action: rule.action,
    figures: {
      value_in_window: value.toFixed(),
      daily_limit: spend.daily_limit.toFixed(),
      fraction: rule.fraction,
      window_seconds: rule.window_seconds,
    },
    words: `${value.toFixed()} spent in the last ${duration(rule.window_seconds)}, above ${threshold.toFixed()} (${rule.fraction} of the daily limit of ${spend.daily_limit.toFixed()})`,
  };
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall clock of `timeZone` (a memo of formatters, not state). */
function formatOf(timeZone: string): Intl.DateTimeFormat {
  let made = formats.get(timeZone);
  // Stryker disable next-line ConditionalExpression: a memo; a formatter made again answers the same
  if (!made) {
    made = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(timeZone, made);
  }
  return made;
}

/**
 * Since 1972 every zone's offset from UTC is a whole number of minutes (Africa/Monrovia's -0:44:30 was
 * the last that was not), so the local minute changes only when the UTC minute does.
 */
const WHOLE_MINUTE_OFFSETS = Date.UTC(1973, 0, 1);
/** The latest local minute read, by zone (a memo, not state: spends come in bursts of the same minute). */
const lastMinute = new Map<string, { utcMinute: number; local: number }>();

/** Minutes since local midnight in `timeZone` at `now`. */
function localMinutes(now: number, timeZone: string): number {
  const utcMinute = Math.floor(now / 60_000);
  const memo = lastMinute.get(timeZone);
  if (memo?.utcMinute === utcMinute && now >= WHOLE_MINUTE_OFFSETS) return memo.local;
  const parts = formatOf(timeZone).formatToParts(new Date(now));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const local = (part('hour') % 24) * 60 + part('minute');
  lastMinute.set(timeZone, { utcMinute, local });
  return local;
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const hhmmOf = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Whether `minute` (of the day) lies in [from, to), across midnight when from > to; never when equal. */
export const inQuietHours = (minute: number, from: number, to: number): boolean =>
  // Stryker disable next-line EqualityOperator: from = to is never either way ([from, from) is empty)
  from < to ? minute >= from && minute < to : from > to ? minute >= from || minute < to : false;

function quietTrip(rule: QuietHoursRule, spend: GuardSpend): GuardTrip | undefined {
  const local = localMinutes(spend.now, rule.time_zone);
  if (!inQuietHours(local, minutesOf(rule.from), minutesOf(rule.to))) return undefined;
  const time = hhmmOf(local);
  return {
    rule: 'quiet_hours',
    action: rule.action,
    figures: { local_time: time, from: rule.from, to: rule.to, time_zone: rule.time_zone },
    words: `a spend at ${time} (${rule.time_zone}), inside the quiet hours ${rule.from} to ${rule.to}`,
  };
}

/**
 * The rules `spend` trips, in the order of `rules`. `refusals` is not judged here (it is about a
 * refusal, not a spend: refusalTrip).
 */
export function evaluateGuard(
  rules: readonly GuardRule[],
  spend: GuardSpend,
  history: GuardHistory,
): GuardTrip[] {
  const trips: GuardTrip[] = [];
  for (const rule of rules) {
    let trip: GuardTrip | undefined;
    switch (rule.kind) {
      case 'velocity':
        trip = velocityTrip(rule, spend, history);
        break;
      case 'burst':
        trip = burstTrip(rule, spend, history);
        break;
      case 'new_counterparty':
        if (spend.entry_type !== 0 && !history.entries.has(spend.entry_id))
          trip = {
            rule: 'new_counterparty',
            action: rule.action,
            figures: { entry_id: spend.entry_id },
            words: `the agent's first spend to allow-list entry ${spend.entry_id}`,
          };
        break;
      case 'new_token':
        if (!history.mints.has(spend.mint))
          trip = {
            rule: 'new_token',
            action: rule.action,
            figures: { mint: spend.mint },
            words: `the agent's first spend of the token ${spend.mint}`,
          };
        break;
      case 'quiet_hours':
        trip = quietTrip(rule, spend);
        break;
      // Stryker disable all: judged by refusalTrip, nothing to do here (a fall-through does nothing)
      case 'refusals':
        break;
      // Stryker restore all
    }
    if (trip) trips.push(trip);
  }
  return trips;
}

/**
 * Called when a spend has just been refused by a policy check (a 403), before its `intent.blocked` is
 * folded: the `refusals` rule's trip when the refusals in its window, this one included, reach its count.
 */
export function refusalTrip(
  rules: readonly GuardRule[],
  now: number,
  history: GuardHistory,
): GuardTrip | undefined {
  const rule = rules.find((r): r is RefusalsRule => r.kind === 'refusals');
  if (!rule) return undefined;
  const refusals = refusalsIn(history, now, rule.window_seconds * 1000) + 1;
  if (refusals < rule.count) return undefined;
  return {
    rule: 'refusals',
    action: 'freeze_agent',
    figures: { refusals, count: rule.count, window_seconds: rule.window_seconds },
    words: `${plural(refusals, 'spend', 'spends')} refused in the last ${duration(rule.window_seconds)}: the rule freezes at ${rule.count}`,
  };
}

// ---- operator input ----

const ACTIONS: readonly GuardAction[] = ['hold', 'freeze_agent'];
const FIELDS: Record<GuardRuleKind, readonly string[]> = {
  velocity: ['factor', 'min_count'],
  burst: ['window_seconds', 'fraction'],
  new_counterparty: [],
  new_token: [],
  refusals: ['count', 'window_seconds'],
  quiet_hours: ['from', 'to', 'time_zone'],
};
const KINDS = Object.keys(FIELDS) as GuardRuleKind[];
const MIN_WINDOW_S = 60;
const MAX_WINDOW_S = 86_400;
const MAX_COUNT = 1000;
const MAX_FACTOR = 1000;
const MAX_DECIMALS = 6;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const DECIMAL = /^\d+(\.\d+)?$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** A JSON Pointer token. */
const token = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const decimals = (v: Big) => Math.max(0, v.c.length - v.e - 1);

/** A decimal from a JSON number or decimal text, or an issue. */
function decimal(v: unknown): Big | string {
  if (Number.isFinite(v)) return new Big(String(v));
  if (typeof v === 'string' && DECIMAL.test(v)) return new Big(v);
  return 'must be a decimal number (a number or a string like "1.5")';
}

/** The time zone's name as Intl knows it, or undefined when Intl does not know it. */
function timeZoneOf(v: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: v }).resolvedOptions().timeZone;
    // Stryker disable next-line all: no return is undefined too
  } catch {
    return undefined;
  }
}

/**
 * The rules of operator input `{rules: [...]}` (or the list alone), checked: every bad field is named
 * in a `validation_error` by its path (`/rules/0/factor`). Time zones are kept under Intl's name for
 * them (`america/new_york` becomes `America/New_York`).
 */
export function parseGuardRules(input: unknown): GuardRule[] {
  const details: ValidationDetail[] = [];
  const issue = (path: string, text: string) => details.push({ path, issue: text });
  let list: unknown = input;
  if (isRecord(input)) {
    for (const key of Object.keys(input)) if (key !== 'rules') issue(`/${token(key)}`, 'unknown field');
    list = input.rules;
  }
  if (!Array.isArray(list)) {
    issue(isRecord(input) ? '/rules' : '', 'must be a list of rules: {rules: [...]}');
    throw validationError(details);
  }
  const rules: GuardRule[] = [];
  const seen = new Set<string>();
  list.forEach((raw: unknown, i) => {
    const at = `/rules/${i}`;
    if (!isRecord(raw)) return issue(at, 'must be an object {kind, ..., action}');
    const kind = raw.kind;
    if (!KINDS.includes(kind as GuardRuleKind))
      return issue(`${at}/kind`, `must be one of ${KINDS.join(', ')}`);
    const k = kind as GuardRuleKind;
    if (seen.has(k)) issue(`${at}/kind`, `a second ${k} rule: one rule of a kind`);
    seen.add(k);
    const before = details.length;
    for (const key of Object.keys(raw))
      if (key !== 'kind' && key !== 'action' && !FIELDS[k].includes(key))
        issue(`${at}/${token(key)}`, `unknown field of a ${k} rule`);
    const action = raw.action;
    if (k === 'refusals') {
      if (action !== 'freeze_agent')
        issue(`${at}/action`, 'a refusals rule only freezes: must be freeze_agent');
    } else if (!ACTIONS.includes(action as GuardAction))
      issue(`${at}/action`, 'must be hold or freeze_agent');

    const integer = (field: string, min: number, max: number): number => {
      const v = raw[field];
      if (v === undefined) issue(`${at}/${field}`, 'required');
      else if (!(Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max))
        issue(`${at}/${field}`, `must be an integer from ${min} to ${max}`);
      return v as number;
    };
    const window = () => integer('window_seconds', MIN_WINDOW_S, MAX_WINDOW_S);
    const count = (field: string) => integer(field, 1, MAX_COUNT);
    const ranged = (field: string, ok: (v: Big) => boolean, bounds: string): Big | undefined => {
      if (raw[field] === undefined) return void issue(`${at}/${field}`, 'required');
      const v = decimal(raw[field]);
      if (typeof v === 'string') return void issue(`${at}/${field}`, v);
      if (decimals(v) > MAX_DECIMALS) return void issue(`${at}/${field}`, `at most ${MAX_DECIMALS} decimals`);
      if (!ok(v)) return void issue(`${at}/${field}`, bounds);
      return v;
    };
    const hhmm = (field: string): string => {
      const v = raw[field];
      if (v === undefined) issue(`${at}/${field}`, 'required');
      else if (typeof v !== 'string' || !HHMM.test(v))
        issue(`${at}/${field}`, 'must be a time HH:MM (00:00 to 23:59)');
      return v as string;
    };

    let rule: GuardRule | undefined;
    const act = action as GuardAction;
    switch (k) {
      case 'velocity': {
        const factor = ranged(
          'factor',
          (v) => v.gte(1) && v.lte(MAX_FACTOR),
          `must be from 1 to ${MAX_FACTOR}`,
        );
        const min_count = count('min_count');
        if (factor) rule = { kind: k, factor: Number(factor.toFixed()), min_count, action: act };
        break;
      }
      case 'burst': {
        const window_seconds = window();
        const fraction = ranged('fraction', (v) => v.gt(0) && v.lte(1), 'must be above 0 and at most 1');
        if (fraction) rule = { kind: k, window_seconds, fraction: fraction.toFixed(), action: act };
        break;
      }
      case 'new_counterparty':
      case 'new_token':
        rule = { kind: k, action: act };
        break;
      case 'refusals':
        rule = { kind: k, count: count('count'), window_seconds: window(), action: 'freeze_agent' };
        break;
      case 'quiet_hours': {
        const from = hhmm('from');
        const to = hhmm('to');
        const zone = raw.time_zone;
        // Stryker disable next-line all: Intl refuses a non-string or empty zone as timeZoneOf does
        const known = typeof zone === 'string' && zone !== '' ? timeZoneOf(zone) : undefined;
        if (zone === undefined) issue(`${at}/time_zone`, 'required');
        else if (!known) issue(`${at}/time_zone`, 'must be an IANA time zone, like "Europe/Paris" or "UTC"');
        rule = { kind: k, from, to, time_zone: known ?? '', action: act };
        break;
      }
    }
    // Stryker disable next-line all: a rule is undefined only beside a detail, and a detail throws below
    if (rule && details.length === before) rules.push(rule);
  });
  if (details.length > 0) throw validationError(details);
  return rules;
}

// ---- changes of the rules ----

/** Whether `after`'s rule of the same kind as `b` lets through something `b` caught. */
function loosened(b: GuardRule, a: GuardRule): boolean {
  if (b.action === 'freeze_agent' && a.action === 'hold') return true;
  switch (b.kind) {
    case 'velocity': {
      const x = a as VelocityRule;
      return new Big(String(x.factor)).gt(String(b.factor)) || x.min_count > b.min_count;
    }
    case 'burst': {
      const x = a as BurstRule;
      return new Big(x.fraction).gt(b.fraction) || x.window_seconds < b.window_seconds;
    }
    case 'refusals': {
      const x = a as RefusalsRule;
      return x.count > b.count || x.window_seconds < b.window_seconds;
    }
    case 'quiet_hours': {
      // Kept simple and safe: any other interval or zone is a loosening, even one that covers the old.
      const x = a as QuietHoursRule;
      return x.from !== b.from || x.to !== b.to || x.time_zone !== b.time_zone;
    }
    // Stryker disable all: no parameter to loosen; a fall-through answers the same false
    case 'new_counterparty':
    case 'new_token':
      return false;
    // Stryker restore all
  }
}

/**
 * Whether replacing the rules `before` by `after` loosens the guard (a proposal, design.md): a rule
 * removed, or one whose parameters let more through (a higher factor or min_count; a larger fraction
 * or count, or a shorter window; other quiet hours), or `hold` where it froze. Adding rules and
 * tightening apply at once (false).
 */
export function guardLoosens(before: readonly GuardRule[], after: readonly GuardRule[]): boolean {
  return before.some((b) => {
    const a = after.find((r) => r.kind === b.kind);
    return a === undefined || loosened(b, a);
  });
}

// ---- the group's rules set ----

/** Key order aside (a store may give a recorded object's keys back in its own order). */
const sameRules = (a: readonly GuardRule[], b: readonly GuardRule[]): boolean =>
  canonicalJson(a) === canonicalJson(b);

/**
 * A recorded rule with its keys in the order people read it (kind, its parameters, action): a store
 * may give a recorded object's keys back in its own order (PostgreSQL's jsonb does).
 */
export const inReadingOrder = (rule: GuardRule): GuardRule => {
  const r = rule as unknown as Record<string, unknown>;
  const ordered: Record<string, unknown> = { kind: rule.kind };
  for (const field of FIELDS[rule.kind]) if (r[field] !== undefined) ordered[field] = r[field];
  ordered.action = rule.action;
  return ordered as unknown as GuardRule;
};

/**
 * Sets the group's rules to `rules` (checked by parseGuardRules): `group.guard_set`, or nothing when
 * they are the rules in force already (the same rules in the same order).
 */
export function decideGuard(
  cmd: { group_id: string; rules: readonly GuardRule[]; now: number },
  before: readonly GuardRule[],
): GroupGuardSet[] {
  if (sameRules(before, cmd.rules)) return [];
  return [{ type: 'group.guard_set', data: { group_id: cmd.group_id, rules: [...cmd.rules], at: cmd.now } }];
}
