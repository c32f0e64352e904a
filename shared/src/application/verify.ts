/**
 * `audit verify`: recomputes the log's tamper evidence (event-store/hash-chain.ts) and names what no
 * longer holds.
 *
 * - **Each stream's chain.** Every event's link is recomputed from its content and the stored link of
 *   the event before it in its stream. An edited event fails its own link and no other (the next one
 *   chains from the stored link, not from a recomputed one), so the report names exactly the event
 *   that changed. A deleted event leaves a gap in its stream's revisions; an event whose link was
 *   erased after hashed ones is named too. Events older than the chain (no link) are counted, and a
 *   stream is verified from its first hashed event.
 * - **The running digest.** Over the events in scope (the whole log, or one group's) in log order:
 *   `digest = SHA-256(digest ‖ link)`, with a checkpoint every `checkpointEvery` events and at the
 *   end. An auditor keeps the checkpoints outside the service; a later run given them (`expect`)
 *   shows that the log up to each is still exactly what it was: nothing removed from a stream's end,
 *   nothing rewritten and re-hashed, nothing inserted.
 *
 * - **The governance.** Every widening change carries a quorum of valid admin signatures over its
 *   proposal's message, under the governance policy then in force (domain/governance-proof.ts).
 *
 * Reads the log through the event store port only, in pages, in log order.
 */
import { hash } from 'node:crypto';
import type { EventStore, LogPosition, RecordedEvent } from '../event-store/port';
import { logPages } from '../event-store/pages';
import { GENESIS_LINK, contentHash, linkHash } from '../event-store/hash-chain';
import { GroupScope, encodeCursor } from './audit';
import { GovernanceAuditor, type GovernanceProof } from '../domain/governance-proof';

export type BreakReason = 'hash_mismatch' | 'missing_event' | 'hash_removed' | 'digest_differs';

export interface BrokenLink {
  reason: BreakReason;
  /** The event named: the changed one, the one after a gap, or the one at a checkpoint. */
  event_id: string | null;
  stream: string | null;
  revision: number | null;
  /** Its log position, as the audit query's cursor. */
  position: string | null;
  message: string;
}

export interface DigestCheckpoint {
  /** Events in scope up to and including this one. */
  events: number;
  position: string;
  digest: string;
}

export interface Verification {
  /** The group verified, or null for the whole log. */
  group: string | null;
  events: number;
  hashed: number;
  /** Events written before the chain existed (no link): not verifiable, counted. */
  unhashed: number;
  streams: number;
  /** What no longer holds, in the order found; empty when the log is intact. */
  broken: BrokenLink[];
  digest: string;
  /** Every widening change against the governance policy then in force (domain/governance-proof.ts). */
  governance: GovernanceProof;
  checkpoints: DigestCheckpoint[];
}

export interface VerifyOptions {
  groupId?: string;
  /** A checkpoint every this many events in scope (and one at the end). */
  checkpointEvery?: number;
  /** Checkpoints of an earlier run: the running digest after each one's event count must be the same. */
  expect?: readonly Pick<DigestCheckpoint, 'events' | 'digest'>[];
  /** Called after each page: events examined so far (in scope or not), and the last position. */
  onProgress?(examined: number, position: LogPosition): void;
  /** Log events read per page. */
  pageSize?: number;
}

interface StreamState {
  next: bigint;
  /** The stored link of the last event verified; null before the first hashed one. */
  link: Buffer | null;
  /** Events seen ahead of their turn (a later revision committed earlier, or a gap). */
  ahead: Map<bigint, RecordedEvent>;
}

const where = (e: RecordedEvent) => ({
  event_id: e.id,
  stream: e.stream,
  revision: Number(e.revision),
  position: encodeCursor(e.position),
});

export async function verifyLog(store: EventStore, options: VerifyOptions = {}): Promise<Verification> {
  const every = options.checkpointEvery ?? 10_000;
  const pageSize = options.pageSize ?? 2_000;
  let scope: GroupScope | undefined;
  if (options.groupId !== undefined) {
    scope = await GroupScope.load(store, options.groupId);
    if (!scope) throw new Error(`no group ${options.groupId} in the log`);
  }
  const expect = new Map((options.expect ?? []).map((c) => [c.events, c]));
  const report: Verification = {
    group: options.groupId ?? null,
    events: 0,
    hashed: 0,
    unhashed: 0,
    streams: 0,
    broken: [],
    digest: '',
    governance: { checked: 0, invalid: [] },
    checkpoints: [],
  };
  const governance = new GovernanceAuditor();
  const states = new Map<string, StreamState>();
  const brokenStreams = new Set<string>();
  const breakAt = (reason: BreakReason, e: RecordedEvent, message: string) => {
    if (reason !== 'digest_differs') {
      if (brokenStreams.has(e.stream)) return;
      brokenStreams.add(e.stream);
    }
    report.broken.push({ reason, ...where(e), message });
  };

  const verifyInTurn = (state: StreamState, e: RecordedEvent, content: Buffer) => {
    if (e.hash === undefined) {
      if (state.link !== null)
        breakAt('hash_removed', e, `${e.stream}@${e.revision} has no link although events before it do`);
      else report.unhashed++;
    } else {
      report.hashed++;
      const recomputed = linkHash(state.link ?? GENESIS_LINK, content).toString('hex');
      if (recomputed !== e.hash)
        breakAt(
          'hash_mismatch',
          e,
          `${e.stream}@${e.revision} (${e.id}, ${e.type}) is not what was written: its content or its place in the stream changed`,
        );
      state.link = Buffer.from(e.hash, 'hex');
    }
    state.next++;
  };

  let digest: Buffer = hash('sha256', 'tokenops audit digest', 'buffer');
  const snapshot = (e: RecordedEvent): DigestCheckpoint => ({
    events: report.events,
    position: encodeCursor(e.position),
    digest: digest.toString('hex'),
  });

  let examined = 0;
  let last: RecordedEvent | undefined;
  for await (const page of logPages(store, { pageSize })) {
    for (const e of page) {
      examined++;
      if (scope) {
        scope.observe(e);
        if (!scope.includes(e.stream)) continue;
      }
      report.events++;
      last = e;
      governance.observe(e);
      const content = contentHash(e);
      digest = linkHash(digest, e.hash === undefined ? content : Buffer.from(e.hash, 'hex'));
      if (report.events % every === 0) report.checkpoints.push(snapshot(e));
      const expected = expect.get(report.events);
      if (expected && expected.digest !== digest.toString('hex'))
        breakAt(
          'digest_differs',
          e,
          `the first ${expected.events} events are not those of the earlier checkpoint (digest ${expected.digest}): one was removed, inserted or rewritten`,
        );
      let state = states.get(e.stream);
      if (!state) states.set(e.stream, (state = { next: 0n, link: null, ahead: new Map() }));
      if (e.revision !== state.next) {
        state.ahead.set(e.revision, e);
        continue;
      }
      verifyInTurn(state, e, content);
      for (let n = state.ahead.get(state.next); n; n = state.ahead.get(state.next)) {
        state.ahead.delete(n.revision);
        verifyInTurn(state, n, contentHash(n));
      }
    }
    if (page.length > 0) options.onProgress?.(examined, page[page.length - 1]!.position);
  }

  for (const [stream, state] of states) {
    if (state.ahead.size === 0) continue;
    const after = [...state.ahead.values()].sort((a, b) => Number(a.revision - b.revision))[0]!;
    breakAt(
      'missing_event',
      after,
      `${stream} has no event at revision ${state.next}: an event before ${stream}@${after.revision} was removed`,
    );
  }
  if (last && report.checkpoints.at(-1)?.events !== report.events) report.checkpoints.push(snapshot(last));
  for (const [count, c] of expect)
    if (count > report.events)
      report.broken.push({
        reason: 'digest_differs',
        event_id: null,
        stream: null,
        revision: null,
        position: null,
        message: `the earlier checkpoint covered ${count} events (digest ${c.digest}); the log now has ${report.events}: events were removed`,
      });
  report.governance = governance.result();
  report.streams = states.size;
  report.digest = digest.toString('hex');
  return report;
}
