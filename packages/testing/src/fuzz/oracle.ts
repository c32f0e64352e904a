/**
 * Builds a fuzz request, sends it over HTTP as raw bytes, and judges the answer: never a 5xx, always
 * the error envelope (the contract's ErrorBody, with the catalogue's status for its code) on a
 * refusal, and a refusal changes nothing: the log ends where it ended, every read model (the whole
 * dump of the agent views) is the same, and no prototype of the process has grown a property.
 */
import fc from 'fast-check';
import {
  ERROR_CATALOGUE,
  comparePositions,
  isErrorCode,
  responseViolations,
  type EventStore,
  type LogPosition,
  type ReadModelStore,
  type RecordedEvent,
} from '@tokenops/shared';
import { projectedPast } from '@tokenops/projections';
import { nameOf, type Endpoint } from './endpoints';
import { serialize, type Json } from './json-text';
import type { Draft, Mutation } from './mutations';

/** What the generators produce: a valid request and the mutations that break it. */
export interface Plan {
  body: Json | undefined;
  params: Record<string, string>;
  query: [string, string][];
  mutations: Mutation[];
}

export interface FuzzRequest {
  endpoint: string;
  method: string;
  /** Path and query, as on the wire. */
  target: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  chunked: boolean;
  mutations: string[];
}

/** Whether a body is not UTF-8 (such a body is refused, never read with replacement characters). */
export const notUtf8 = (body: Buffer | undefined): boolean =>
  body !== undefined && !Buffer.from(body.toString('utf8'), 'utf8').equals(body);

export function build(endpoint: Endpoint, plan: Plan, credential: string | undefined): FuzzRequest {
  const draft: Draft = {
    body: plan.body,
    raw: undefined,
    contentType: undefined,
    chunked: false,
    params: { ...plan.params },
    query: plan.query.map(([k, v]) => [k, v]),
    headers: credential ? { authorization: `Bearer ${credential}` } : {},
  };
  const ordered = [...plan.mutations].sort((a, b) => a.stage - b.stage);
  for (const m of ordered.filter((m) => m.stage === 0)) m.apply(draft);
  if (draft.body !== undefined) {
    draft.raw = serialize(draft.body);
    draft.contentType = 'application/json';
  }
  for (const m of ordered.filter((m) => m.stage > 0)) m.apply(draft);
  const path = endpoint.path.replace(/:(\w+)/g, (_, name: string) => draft.params[name] ?? '');
  const query = draft.query.map(([k, v]) => `${k}=${v}`).join('&');
  const headers = { ...draft.headers };
  if (draft.contentType !== undefined) headers['content-type'] = draft.contentType;
  return {
    endpoint: nameOf(endpoint),
    method: endpoint.method,
    target: query ? `${path}?${query}` : path,
    headers,
    body: endpoint.method === 'GET' || endpoint.method === 'DELETE' ? undefined : draft.raw,
    chunked: draft.chunked,
    mutations: ordered.map((m) => m.label),
  };
}

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}…(${text.length})` : text;

/** Bytes as text: valid UTF-8 as it reads (control characters escaped), any other byte as \xNN. */
export function readable(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  const shown = Buffer.from(text, 'utf8').equals(bytes)
    ? text
    : [...bytes]
        .map((b) =>
          b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
        )
        .join('');
  return shown.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function describe(r: FuzzRequest): string {
  const headers = Object.entries(r.headers)
    .map(([k, v]) => `${k}: ${clip(k === 'authorization' ? v.replace(/(\S{12})\S+/, '$1…') : v, 80)}`)
    .join(', ');
  const body =
    r.body === undefined
      ? '(none)'
      : `${clip(readable(r.body), 300)} (${r.body.length} bytes${r.chunked ? ', chunked' : ''})`;
  return [
    `${r.method} ${clip(r.target, 200)}`,
    `  mutations: ${r.mutations.join(' | ')}`,
    `  headers: ${headers}`,
    `  body: ${body}`,
  ].join('\n');
}

export interface Reply {
  status: number;
  contentType: string | null;
  text: string;
  /** Why no answer came (status 0). */
  failure?: string;
}

export async function send(base: string, r: FuzzRequest): Promise<Reply> {
  const init: RequestInit & { duplex?: 'half' } = {
    method: r.method,
    headers: r.headers,
    signal: AbortSignal.timeout(15_000),
  };
  if (r.body !== undefined) {
    const bytes = new Uint8Array(r.body);
    init.body = r.chunked
      ? new ReadableStream({
          start(c) {
            c.enqueue(bytes);
            c.close();
          },
        })
      : bytes;
    if (r.chunked) init.duplex = 'half';
  }
  try {
    const res = await fetch(`${base}${r.target}`, init);
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
    return { status: res.status, contentType: res.headers.get('content-type'), text };
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return { status: 0, contentType: null, text: '', failure: `${String(err)}${cause ? ` (${cause})` : ''}` };
  }
}

const ENVELOPE_KEYS = new Set(['error', 'message', 'details']);

/** What is wrong with the answer itself: status, content type, envelope. */
export function answerProblems(reply: Reply): string[] {
  if (reply.status === 0) return [`no answer: ${reply.failure}`];
  const problems: string[] = [];
  if (reply.status >= 500) problems.push(`status ${reply.status}`);
  if (!/^application\/json\b/.test(reply.contentType ?? ''))
    problems.push(`content-type ${JSON.stringify(reply.contentType)}, not JSON`);
  let body: unknown;
  try {
    body = JSON.parse(reply.text);
  } catch {
    return [...problems, 'the body is not JSON'];
  }
  if (typeof body !== 'object' || body === null) return [...problems, 'the body is not a JSON object'];
  const fields = body as Record<string, unknown>;
  if (reply.status >= 200 && reply.status < 300) {
    if ('error' in fields) problems.push('a 2xx answer carries an error');
    return problems;
  }
  for (const v of responseViolations('ErrorBody', body))
    problems.push(`not the error envelope: ${v.path || '(body)'} ${v.issue}`);
  const extra = Object.keys(fields).filter((k) => !ENVELOPE_KEYS.has(k));
  if (extra.length > 0) problems.push(`the envelope has other fields: ${extra.join(', ')}`);
  const code = fields.error;
  if (typeof code === 'string' && isErrorCode(code) && ERROR_CATALOGUE[code].status !== reply.status)
    problems.push(
      `${code} answered with ${reply.status}; the catalogue says ${ERROR_CATALOGUE[code].status}`,
    );
  return problems;
}

const PROTOTYPES: [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
];
const ownNames = (o: object) => Object.getOwnPropertyNames(o).sort().join(',');
/** An intent's outcome: it settled, confirmed or failed. */
const isOutcome = (e: RecordedEvent) => e.type === 'intent.confirmed' || e.type === 'intent.failed';

/**
 * Watches what a request may change: the log's head, the read models (their whole dump), the
 * prototypes of this process (the embedded service runs in it). `settle` takes the state after an
 * accepted request as the new reference.
 */
export class Observer {
  private head: LogPosition = { commit: 0n, prepare: 0n };
  private dump = new Map<string, string>();
  private readonly prototypes = PROTOTYPES.map(([, o]) => ownNames(o));
  /** Background events were projected since the reference: the checkpoints moved for them. */
  private backgroundMoved = false;

  constructor(
    private readonly store: EventStore,
    private readonly views: ReadModelStore,
  ) {}

  /** Waits for the log to stop growing and the views to include all of it; its head. */
  async catchUp(): Promise<LogPosition> {
    for (;;) {
      const head = await this.store.headPosition();
      if (!(await projectedPast(this.views, head, 10_000)))
        throw new Error('the read models did not catch up with the log in 10 s');
      if (comparePositions(await this.store.headPosition(), head) === 0) return head;
    }
  }

  /**
   * Waits for the outcome of every intent the accepted request set going (a held spend approved runs
   * on the executor after the answer), then catches up; that state is the reference from now on. The
   * head is taken after the outcomes were seen: `outcomesOwed` reads the log to its end, so a head
   * taken before it may miss the executor's events it saw (they would then count against the next
   * request).
   */
  async settle(): Promise<void> {
    this.backgroundMoved = false;
    const giveUpAt = Date.now() + 10_000;
    for (
      let owed = await this.outcomesOwed(this.head);
      owed.length > 0;
      owed = await this.outcomesOwed(this.head)
    ) {
      if (Date.now() > giveUpAt) throw new Error(`no outcome in 10 s for the intents ${owed.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.head = await this.catchUp();
    this.dump = await this.views.dump();
  }

  /** The intents set going since `from` (accepted to run, or decided by an approver) still without an outcome. */
  private async outcomesOwed(from: LogPosition): Promise<string[]> {
    const going = new Set<string>();
    const settled = new Set<string>();
    for (const e of await this.store.readAll({ from, maxCount: 10_000 })) {
      const data = e.data as { intent_id?: string; held?: unknown };
      if (!data.intent_id) continue;
      if ((e.type === 'intent.accepted' && !data.held) || e.type === 'approval.decided')
        going.add(data.intent_id);
      if (isOutcome(e)) settled.add(data.intent_id);
    }
    const owed: string[] = [];
    for (const id of going) {
      if (settled.has(id)) continue;
      // Its outcome may have landed before `from` (an approval decided after the intent failed).
      const story = (await this.store.readCorrelated?.(id)) ?? [];
      if (!story.some(isOutcome)) owed.push(id);
    }
    return owed;
  }

  /** Problems if a prototype of the process grew or changed. */
  prototypeProblems(): string[] {
    return PROTOTYPES.flatMap(([name, o], i) =>
      ownNames(o) === this.prototypes[i] ? [] : [`${name} changed: ${ownNames(o)}`],
    );
  }

  /**
   * The events appended since the reference, but those no request causes: the expiry scheduler
   * announces allow-list entries (the fuzz adds some with short TTLs) whenever their time comes.
   */
  async newEvents(): Promise<RecordedEvent[]> {
    const head = await this.store.headPosition();
    if (comparePositions(head, this.head) === 0) return [];
    const all = await this.store.readAll({ from: this.head, maxCount: 1_000 });
    const caused = all.filter((e) => !BACKGROUND.has(e.type));
    if (caused.length < all.length) {
      // Their projection moves the checkpoints, and nothing else: compare once it has.
      await this.catchUp();
      this.backgroundMoved = true;
    }
    return caused;
  }

  /** The read models that differ from the reference (the projection checkpoints left out on request). */
  async changedViews(ignoreCheckpoints = false): Promise<string[]> {
    const now = await this.views.dump();
    const keys = new Set([...now.keys(), ...this.dump.keys()]);
    if (ignoreCheckpoints || this.backgroundMoved) keys.delete('checkpoints');
    return [...keys]
      .filter((k) => now.get(k) !== this.dump.get(k))
      .map((k) => `${k}: ${clip(this.dump.get(k) ?? '(none)', 200)} -> ${clip(now.get(k) ?? '(none)', 200)}`);
  }
}

const eventText = (e: RecordedEvent) => `${e.type} in ${e.stream}`;

/**
 * A refused spend kept under its idempotency key: the events are the claim and the completion of a
 * key of this agent with the answered status, and events of the intent that claim names.
 */
function isRecordedRefusal(events: RecordedEvent[], status: number, agentId: string): boolean {
  const ownKey = (e: RecordedEvent) => e.stream.startsWith(`idem-${agentId}-`);
  const claimed = new Set(
    events
      .filter((e) => ownKey(e) && e.type === 'idempotency.claimed')
      .map((e) => (e.data as { intent_id: string }).intent_id),
  );
  const completed = events.some(
    (e) =>
      ownKey(e) &&
      e.type === 'idempotency.completed' &&
      claimed.has((e.data as { intent_id: string }).intent_id) &&
      (e.data as { status: number }).status === status,
  );
  return (
    completed &&
    events.every((e) => ownKey(e) || claimed.has((e.data as { intent_id?: string }).intent_id ?? ''))
  );
}

/** Events no request causes (the expiry scheduler's), which may land while a request is judged. */
const BACKGROUND = new Set(['policy.whitelist_expiring']);

/** What `judge` throws: every problem, and short tags that name the kind of failure. */
export class FuzzFailure extends Error {
  constructor(
    readonly problems: string[],
    readonly kinds: string[],
    reply: Reply,
  ) {
    super(`${problems.join('\n')}\nanswer: ${reply.status} ${clip(reply.text, 500)}`);
    this.name = 'FuzzFailure';
  }
}

/** Judges one answer; throws with every problem found (fast-check reports it with the request). */
export async function judge(
  endpoint: Endpoint,
  request: FuzzRequest,
  reply: Reply,
  observer: Observer,
  agentId: string,
): Promise<void> {
  const problems = [...answerProblems(reply), ...observer.prototypeProblems()];
  if (notUtf8(request.body) && reply.status >= 200 && reply.status < 300)
    problems.push('a body that is not UTF-8 was accepted');
  const kinds = problems.map((p) => (p.startsWith('status ') ? p : p.replace(/:.*$/s, '')));
  if (reply.status >= 200 && reply.status < 300) await observer.settle();
  else {
    const events = await observer.newEvents();
    if (events.length === 0) {
      const changed = await observer.changedViews();
      if (changed.length > 0) {
        problems.push(`refused, yet read models changed: ${changed.join('; ')}`);
        kinds.push('read models changed');
      }
    } else {
      await observer.catchUp();
      const changed = await observer.changedViews(true);
      if (endpoint.recordsRefusals && isRecordedRefusal(events, reply.status, agentId)) {
        if (changed.length > 0) {
          problems.push(`a refusal kept under its key changed read models: ${changed.join('; ')}`);
          kinds.push('read models changed');
        }
      } else {
        problems.push(
          `refused, yet the log grew by ${events.length} event(s): ${events.map(eventText).join(', ')}`,
        );
        kinds.push(`log grew: ${[...new Set(events.map((e) => e.type))].join(', ')}`);
        if (changed.length > 0) problems.push(`and read models changed: ${changed.join('; ')}`);
      }
      await observer.settle(); // the next request is judged against the state after this one
    }
  }
  if (problems.length > 0) throw new FuzzFailure(problems, kinds, reply);
}

/** Prints a plan as the request it becomes (fast-check shows it as the counterexample). */
export function printable<T extends Plan>(plan: T, show: (p: T) => string): T {
  return Object.assign(plan, { [fc.toStringMethod]: () => show(plan) });
}
