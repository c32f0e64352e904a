/**
 * The audit query as an auditor uses it: the group's events (its stream, its agents', its budgets',
 * its agents' payments and webhooks) and nothing else, in log order, each with its position, stream,
 * revision, type, data, metadata and time; filters by time, agent and type; a cursor that pages over
 * a log that grows without repeating or skipping; the whole range as NDJSON, over a thousand events
 * long. What is expected is read from the log itself (`world.service.ctx.store`), by stream. Bad
 * input is the error envelope, never a 500.
 */
import { AUDIT_READ_PAGE, generateSigner, streams, type RecordedEvent } from '@tokenops/shared';
import {
  key,
  signIn,
  startWorld,
  type Operator,
  type World,
  enact,
  invitation,
} from '@tokenops/testing/harness';

interface Shown {
  position: string;
  event_id: string;
  stream: string;
  revision: number;
  type: string;
  data: Record<string, unknown>;
  metadata: { correlation_id: string | null; causation_id: string | null };
  recorded_at: string;
  hash: string | null;
}
interface Page {
  events: Shown[];
  next_cursor: string;
  has_more: boolean;
}

let world: World;
let auditor: Operator;
let a: { id: string; key: string };
let b: { id: string; key: string };
/** Another operator's group with an agent of its own: none of it is this group's. */
let foreign: { group: string; agent: string };

beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 1_000_000 });
  auditor = await signIn(world.client);
  const granted = await enact(
    world.client,
    [world.operator],
    'POST',
    `/api/v1/orchestrator/groups/${world.groupId}/auditors`,
    { wallet: auditor.wallet.address },
  );
  expect(granted.body.status).toBe('executed');
  a = await world.agent();
  b = await world.agent();
  expect((await transfer(a, world.vendor, 2)).status).toBe(200);
  expect((await transfer(b, generateSigner().address, 1)).status).toBe(403);
  const other = await signIn(world.client);
  const group = await world.client.call('POST', '/api/v1/orchestrator/groups', {
    token: other.token,
    body: {},
  });
  const invited = await invitation(world.client, other, group.body.group_config_pda as string);
  foreign = { group: group.body.group_config_pda as string, agent: invited.body.agent_wallet_pda };
}, 60_000);
afterAll(async () => world?.close());

const transfer = (agent: { key: string }, to: string, amount: number) =>
  world.client.call('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to, amount, idempotency_key: key() },
  });
/** A transfer to an address nobody allow-listed: refused, recorded as intent.blocked. */
const blocked = (agent: { key: string }) => transfer(agent, generateSigner().address, 1);

const query = (params: Record<string, string | number> = {}, token = auditor.token) =>
  world.client.call<Page>(
    'GET',
    `/api/v1/audit/groups/${world.groupId}/events?${new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    )}`,
    { token },
  );

/** Every page after `cursor` until the end: the events and the cursor to go on from. */
async function readToEnd(params: Record<string, string | number> = {}, cursor?: string) {
  const out: Shown[] = [];
  for (;;) {
    const page = await query({ ...params, limit: 1000, ...(cursor !== undefined && { cursor }) });
    expect(page.status).toBe(200);
    out.push(...page.body.events);
    cursor = page.body.next_cursor;
    if (!page.body.has_more) return { events: out, cursor };
  }
}

/** The group's streams as the owner describes the group (its agents and its allow-list entries). */
async function groupStreams(): Promise<Set<string>> {
  const g = await world.client.call<{
    agents: { agent_wallet_pda: string }[];
    whitelist: { whitelist_entry_pda: string }[];
  }>('GET', `/api/v1/orchestrator/groups/${world.groupId}`, { token: world.operator.token });
  return new Set([
    streams.group(world.groupId),
    streams.proposals(world.groupId),
    streams.webhooks({ groupId: world.groupId }),
    ...g.body.agents.flatMap((x) => [
      streams.agent(x.agent_wallet_pda),
      streams.payments(x.agent_wallet_pda),
      streams.webhooks({ agentId: x.agent_wallet_pda }),
    ]),
    ...g.body.whitelist.map((e) => streams.budget(e.whitelist_entry_pda)),
  ]);
}

/** The group's events in the log, in log order. */
async function expected(where: (e: RecordedEvent) => boolean = () => true): Promise<RecordedEvent[]> {
  const mine = await groupStreams();
  return (await world.log()).filter((e) => mine.has(e.stream) && where(e));
}

/**
 * Waits until every reservation of the group's budgets is settled: a transfer answers once it is
 * confirmed, and on EventStoreDB its budget.consumed is appended a moment later (with the outcome,
 * in one append, on PostgreSQL and PGlite).
 */
async function settled(): Promise<void> {
  const budgets = [...(await groupStreams())].filter((x) => x.startsWith('budget-'));
  for (const giveUpAt = Date.now() + 10_000; Date.now() < giveUpAt;) {
    const counts = { reserved: 0, settled: 0 };
    for (const stream of budgets)
      for (const e of await world.service.ctx.store.readStream(stream)) {
        if (e.type === 'budget.reserved') counts.reserved++;
        if (e.type === 'budget.consumed' || e.type === 'budget.released') counts.settled++;
      }
    if (counts.reserved === counts.settled) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the budgets did not settle');
}

const ids = (events: readonly { event_id?: string; id?: string }[]) => events.map((e) => e.event_id ?? e.id);
/** Without the expiry scheduler's notice of the vendor's entry (24 h TTL), which lands whenever its tick comes. */
const steady = <E extends { type: string }>(events: readonly E[]): E[] =>
  events.filter((e) => e.type !== 'policy.whitelist_expiring');

describe("the group's events", () => {
  it('are all of the group, nothing else, in log order, each with its position, stream, revision, type, data, metadata and time', async () => {
    await settled();
    // The expiry scheduler announces the vendor's entry (24 h TTL) whenever its tick comes, maybe while
    // this reads: the answer is the log as it was at some moment between the two reads of it, whole.
    const before = await expected();
    const { events } = await readToEnd();
    const log = await expected();
    expect(events.length).toBeGreaterThanOrEqual(before.length);
    expect(ids(events)).toEqual(ids(log).slice(0, events.length));
    const types = events.map((e) => e.type).filter((t) => t !== 'policy.whitelist_expiring');
    expect(new Set(types)).toEqual(
      new Set([
        'group.created',
        'whitelist.entry_added',
        'auditor.granted',
        'agent.invited',
        'agent.registered',
        'payment.received',
        'budget.reserved',
        'intent.accepted',
        'intent.submitting',
        'intent.confirmed',
        'budget.consumed',
        'intent.blocked',
        // The widening changes' proposals, signatures and executions (the group's proposals stream).
        'governance.proposed',
        'governance.signed',
        'governance.executed',
      ]),
    );
    const first = events[0]!;
    const recorded = log[0]!;
    expect(first).toEqual({
      position: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      event_id: recorded.id,
      stream: streams.group(world.groupId),
      revision: 0,
      type: 'group.created',
      data: recorded.data,
      metadata: { correlation_id: null, causation_id: null },
      recorded_at: recorded.metadata.timestamp,
      hash: recorded.hash,
    });
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    // Every event of an intent, in the agent's stream and the budget's, carries the intent's id as its correlation id.
    const ofIntents = events.filter((e) => typeof (e.data as { intent_id?: unknown }).intent_id === 'string');
    expect(ofIntents.some((e) => e.stream.startsWith('budget-'))).toBe(true);
    for (const e of ofIntents)
      expect(e.metadata.correlation_id).toBe((e.data as { intent_id: string }).intent_id);
    expect(events.every((e) => e.revision === Number(log.find((r) => r.id === e.event_id)!.revision))).toBe(
      true,
    );
    // Nothing of the other group, and no wallet seed, idempotency record or sign-in.
    const shownStreams = new Set(events.map((e) => e.stream));
    expect(
      [...shownStreams].filter(
        (s) => !/^(group|proposals|agent|budget|payments|webhooks-(agent|group))-/.test(s),
      ),
    ).toEqual([]);
    expect(shownStreams.has(streams.group(foreign.group))).toBe(false);
    expect(events.some((e) => JSON.stringify(e.data).includes(foreign.agent))).toBe(false);
  });

  it('filter by type (one or several), by agent, and by time', async () => {
    const onlyBlocked = (await readToEnd({ type: 'intent.blocked' })).events;
    expect(ids(onlyBlocked)).toEqual(ids(await expected((e) => e.type === 'intent.blocked')));
    expect(onlyBlocked.length).toBeGreaterThan(0);

    const two = (await readToEnd({ type: 'intent.accepted,intent.confirmed' })).events;
    expect(ids(two)).toEqual(
      ids(await expected((e) => e.type === 'intent.accepted' || e.type === 'intent.confirmed')),
    );

    const ofB = (await readToEnd({ agent: b.id })).events;
    const bStreams = [streams.agent(b.id), streams.payments(b.id), streams.webhooks({ agentId: b.id })];
    expect(ids(ofB)).toEqual(
      ids(
        await expected(
          (e) => bStreams.includes(e.stream) || (e.data as { agent_id?: string }).agent_id === b.id,
        ),
      ),
    );
    expect(ofB.some((e) => e.stream === streams.agent(a.id))).toBe(false);
    expect(ofB.map((e) => e.type)).toEqual(
      expect.arrayContaining(['agent.invited', 'agent.registered', 'intent.blocked']),
    );

    // The expiry scheduler may announce the vendor's entry between two of these reads: its event is
    // left out, as in the first test (the others are all written by the time these reads begin).
    const settledOnes = async (filter?: Record<string, string>) => steady((await readToEnd(filter)).events);
    const all = await settledOnes();
    const middle = all[Math.floor(all.length / 2)]!.recorded_at;
    const since = await settledOnes({ from: middle });
    const before = await settledOnes({ to: middle });
    expect(since.every((e) => Date.parse(e.recorded_at) >= Date.parse(middle))).toBe(true);
    expect(before.every((e) => Date.parse(e.recorded_at) < Date.parse(middle))).toBe(true);
    expect(new Set([...ids(before), ...ids(since)])).toEqual(new Set(ids(all)));
    expect(before.length + since.length).toBe(all.length);
    const window = (await readToEnd({ from: middle, to: middle })).events;
    expect(window).toEqual([]);
  });

  it('page by cursor while transfers are made between pages: no event repeated, none skipped', async () => {
    const seen: Shown[] = [];
    let cursor: string | undefined;
    for (let i = 0; ; i++) {
      const page = await query({ limit: 4, ...(cursor !== undefined && { cursor }) });
      expect(page.status).toBe(200);
      expect(page.body.events.length).toBeLessThanOrEqual(4);
      seen.push(...page.body.events);
      cursor = page.body.next_cursor;
      if (i < 6) {
        // The log grows between pages: a refused transfer, and one that goes through.
        expect((await blocked(a)).status).toBe(403);
        if (i % 3 === 0) expect((await transfer(b, world.vendor, 1)).status).toBe(200);
      } else if (!page.body.has_more) break;
    }
    await settled();
    const tail = await readToEnd({}, cursor);
    seen.push(...tail.events);
    expect(new Set(ids(seen)).size).toBe(seen.length);
    // The expiry scheduler's notice of the vendor's entry lands whenever its tick comes, maybe after the
    // last page: compared without it.
    expect(ids(steady(seen))).toEqual(ids(steady(await expected())));
    // Read on from the last cursor later: only what was appended since.
    expect((await blocked(b)).status).toBe(403);
    const later = steady((await readToEnd({}, tail.cursor)).events);
    expect(later.map((e) => e.type)).toEqual(['intent.blocked']);
    expect(later[0]!.stream).toBe(streams.agent(b.id));
  });
});

describe('NDJSON', () => {
  const ndjson = async (params: Record<string, string> = {}, token = auditor.token) => {
    const res = await fetch(
      `${world.client.url}/api/v1/audit/groups/${world.groupId}/events?${new URLSearchParams(params)}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' } },
    );
    const text = await res.text();
    return {
      res,
      lines:
        text === ''
          ? []
          : text
              .trimEnd()
              .split('\n')
              .map((l) => JSON.parse(l) as Shown),
    };
  };

  it('streams the whole range, over a thousand events (pages of the log read in turn, lines written in chunks), in log order, one event a line', async () => {
    const agents = [a, b, await world.agent({}, 0), await world.agent({}, 0)];
    // 1,000 refused transfers: more events than two pages of the service's reads of the log.
    for (let round = 0; round < 10; round++)
      await Promise.all(
        agents.flatMap((agent) =>
          Array.from({ length: 25 }, async () => expect((await blocked(agent)).status).toBe(403)),
        ),
      );
    const { res, lines } = await ndjson();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('content-length')).toBeNull(); // written as it is read, not as one body
    const log = await expected();
    expect(log.length).toBeGreaterThan(2 * AUDIT_READ_PAGE);
    expect(lines.reduce((bytes, line) => bytes + JSON.stringify(line).length, 0)).toBeGreaterThan(
      4 * 64 * 1024,
    );
    expect(ids(lines)).toEqual(ids(log));
    // From a cursor, filtered: the same as the pages give.
    const cursor = lines[100]!.position;
    const some = await ndjson({ cursor, type: 'intent.blocked', agent: a.id });
    expect(ids(some.lines)).toEqual(
      ids((await readToEnd({ type: 'intent.blocked', agent: a.id }, cursor)).events),
    );
    expect(some.lines.length).toBeGreaterThan(200);
  }, 180_000);

  it('a client that goes away mid-stream stops the read, and the service answers on', async () => {
    const controller = new AbortController();
    const res = await fetch(`${world.client.url}/api/v1/audit/groups/${world.groupId}/events`, {
      headers: { authorization: `Bearer ${auditor.token}`, accept: 'application/x-ndjson' },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    controller.abort();
    await reader.read().catch(() => undefined);
    const page = await query({ limit: 1 });
    expect(page.status).toBe(200);
    expect(page.body.events).toHaveLength(1);
  });

  it('after the last cursor: 200 and no lines', async () => {
    const { cursor } = await readToEnd();
    const { res, lines } = await ndjson({ cursor });
    expect(res.status).toBe(200);
    expect(lines).toEqual([]);
  });

  it('refuses what the pages refuse, with the envelope: a stranger, a bad cursor', async () => {
    const stranger = await signIn(world.client);
    const refused = await ndjson({}, stranger.token);
    expect(refused.res.status).toBe(403);
    expect(refused.res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.lines).toEqual([{ error: 'forbidden', message: expect.any(String) }]);
    const r = await fetch(`${world.client.url}/api/v1/audit/groups/${world.groupId}/events?cursor=zz`, {
      headers: { authorization: `Bearer ${auditor.token}`, accept: 'application/x-ndjson' },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe('validation_error');
  });
});

describe('bad input to the query', () => {
  it.each([
    [{ limit: 0 }, '/limit'],
    [{ limit: 1001 }, '/limit'],
    [{ limit: 'ten' }, '/limit'],
    [{ cursor: '!!' }, '/cursor'],
    [{ cursor: 'bm90IGEgY3Vyc29y' }, '/cursor'],
    [{ from: 'yesterday' }, '/from'],
    [{ to: '2026-13-01T00:00:00Z' }, '/to'],
    [{ agent: 'short' }, '/agent'],
    [{ type: 'Not A Type' }, '/type'],
    [{ colour: 'red' }, '/colour'],
  ])('%j is 400 validation_error', async (params, path) => {
    const r = await query(params as Record<string, string>);
    expect({ status: r.status, error: (r.body as unknown as { error: string }).error }).toEqual({
      status: 400,
      error: 'validation_error',
    });
    expect((r.body as unknown as { details: { path: string }[] }).details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path })]),
    );
  });

  it('a parameter given twice is 400, not 500', async () => {
    const r = await world.client.call('GET', `/api/v1/audit/groups/${world.groupId}/events?limit=1&limit=2`, {
      token: auditor.token,
    });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'validation_error' });
  });

  it('limit defaults to 100 and is at most 1000', async () => {
    const all = (await readToEnd()).events;
    expect(all.length).toBeGreaterThan(1000);
    expect((await query()).body.events).toHaveLength(100);
    expect((await query({ limit: 1000 })).body.events).toHaveLength(1000);
  });
});
