/**
 * The audit at scale: a log of 100,000 events, verified (every hash chain, the running digest and its
 * checkpoints, the whole log and a group's share of it) and reconciled with the chain (every
 * confirmed intent's transaction, every movement, every balance).
 *
 * The log is made in two parts. Real transfers and swaps on the embedded service (LiteSVM, the real
 * Solana runtime) write the first events: those are the ones reconciled. The rest are those same
 * spends' events again, as the spends of further agents (fresh agent, intent and event ids) in a
 * second group of the same operator, appended in big batches through the event store's own append
 * (hash chain and all), until the log holds 100,000 events: driving 20,000 spends through the whole
 * service took seven minutes and verified nothing more.
 *
 * An int test, not e2e: it runs once, on the embedded service. The time each step took is printed
 * (figures for docs/performance.md come from `npm run bench`, not from here).
 */
import {
  generateSigner,
  logPages,
  newId,
  streams,
  verifyLog,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '@tokenops/shared';
import { key, startWorld, type World } from '@tokenops/testing/harness';

const TARGET = 100_000;
const AGENTS = 16;
/** Real spends: each agent makes SPENDS in turn, 16 at a time. */
const SPENDS = 25;
const CHECKPOINT_EVERY = 10_000;
let world: World;

beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 100_000_000, vendorBudget: 1_000_000_000 });
});
afterAll(async () => world?.close());

const mint = (symbol: string) => world.service.ctx.chain.tokens.find((t) => t.symbol === symbol)!.mint;

const escape = (id: string) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const dataOf = (e: RecordedEvent) => e.data as Record<string, unknown>;

/**
 * Appends copies of a group's events (its stream, its agents' streams and every stream named after
 * one of its agents: payments, idempotency records, wallets; its entries' budget streams) until the
 * log holds `target` events. The copies form one new group: its events and its entries once, and each
 * copy of the agents under fresh agent and intent ids. Each stream's events go in one append, the
 * streams of a copy all at once (the store commits them in batches). Returns the new group's id.
 */
async function copyGroupUntil(store: EventStore, groupId: string, target: number): Promise<string> {
  const log: RecordedEvent[] = [];
  for await (const page of logPages(store, { pageSize: 10_000 })) log.push(...page);
  const group = log.filter((e) => e.stream === streams.group(groupId));
  const ids = (type: string, field: string, events: RecordedEvent[]) =>
    events.filter((e) => e.type === type).map((e) => String(dataOf(e)[field]));
  const agents = ids('agent.invited', 'agent_id', group);
  const perCopy = [...agents, ...ids('intent.accepted', 'intent_id', log)];
  const copyId = generateSigner().address;
  const shared = new Map([
    [groupId, copyId],
    ...ids('whitelist.entry_added', 'entry_id', group).map((id) => [id, newId()] as const),
  ]);
  const anyId = new RegExp([...shared.keys(), ...perCopy].map(escape).join('|'), 'g');
  const agentId = new RegExp(agents.map(escape).join('|'));
  const perCopyId = new RegExp(perCopy.map(escape).join('|'));
  const source = log.filter((e) => e.stream.match(anyId));

  for (let copy = 0; Number((await store.headPosition()).prepare) < target; copy++) {
    const rename = new Map(shared);
    for (const id of agents) rename.set(id, generateSigner().address);
    for (const id of perCopy) if (!rename.has(id)) rename.set(id, newId());
    const renamed = (text: string) => text.replace(anyId, (id) => rename.get(id)!);
    const appends = new Map<string, NewEvent[]>();
    for (const e of source) {
      const { timestamp: _at, ...metadata } = e.metadata; // the append stamps its own time
      const text = JSON.stringify({ data: e.data, metadata });
      // The group's own events (its creation, its entries) once; those of its agents with each copy.
      if (copy > 0 && !agentId.test(e.stream) && !perCopyId.test(text)) continue;
      const copied = JSON.parse(renamed(text)) as Pick<NewEvent, 'data' | 'metadata'>;
      const stream = renamed(e.stream);
      const events = appends.get(stream) ?? [];
      events.push({ type: e.type, ...copied });
      appends.set(stream, events);
    }
    await Promise.all([...appends].map(([stream, events]) => store.append(stream, events, 'any')));
  }
  return copyId;
}

it('verifies and reconciles a log of 100,000 events, the first ones built by real transfers and swaps', async () => {
  const limits = { per_tx_limit: 1_000, daily_limit: 1_000_000_000, hourly_tx_cap: 1_000_000 };
  const agents = await Promise.all(Array.from({ length: AGENTS }, () => world.agent(limits, 1_000_000)));
  const request = (i: number) =>
    i % 3 === 2
      ? {
          path: '/api/v1/swap',
          body: {
            from_token: 'USDC',
            to_token: 'SOL',
            from_mint: mint('USDC'),
            to_mint: mint('SOL'),
            amount: 1,
            idempotency_key: key(),
          },
        }
      : { path: '/api/v1/transfer', body: { to: world.vendor, amount: 1, idempotency_key: key() } };
  let waits = 0;
  // As a client does: a spend still executing when its wait ends (409 idempotency_in_progress) is
  // asked again with the same key until it answers.
  const spend = async (agent: { key: string }, i: number) => {
    const { path, body } = request(i);
    for (;;) {
      const answer = await world.client.call('POST', path, { token: agent.key, body });
      if (answer.status !== 409 || answer.body.error !== 'idempotency_in_progress') return answer;
      waits++;
    }
  };
  const store = world.service.ctx.store;
  const events = async () => Number((await store.headPosition()).prepare);
  let started = Date.now();
  const refused: unknown[] = [];
  await Promise.all(
    agents.map(async (agent) => {
      for (let i = 0; i < SPENDS; i++) {
        const answer = await spend(agent, i);
        if (answer.status !== 200) refused.push(answer.body);
      }
    }),
  );
  const spends = AGENTS * SPENDS;
  expect(refused).toEqual([]);
  const real = await events();
  console.log(
    `built ${real} events by ${spends} spends in ${(Date.now() - started) / 1000} s (${waits} asked again)`,
  );

  started = Date.now();
  const reconciled = await world.client.call<{
    discrepancies: unknown[];
    transactions: number;
    agents: number;
  }>('GET', `/api/v1/orchestrator/groups/${world.groupId}/reconciliation`, { token: world.operator.token });
  expect(reconciled.status).toBe(200);
  expect(reconciled.body.discrepancies).toEqual([]);
  expect(reconciled.body.agents).toBe(AGENTS);
  expect(reconciled.body.transactions).toBeGreaterThanOrEqual(spends);
  console.log(
    `reconciled ${reconciled.body.transactions} transactions in ${(Date.now() - started) / 1000} s`,
  );

  // The copies are not spends the service made: reconciled before them, and its projection (the views,
  // which nothing here reads) is stopped before them.
  await world.service.stopProjection!();
  started = Date.now();
  const copied = await copyGroupUntil(store, world.groupId, TARGET);
  console.log(
    `appended ${(await events()) - real} events copied from them in ${(Date.now() - started) / 1000} s`,
  );

  started = Date.now();
  const whole = await verifyLog(store, { checkpointEvery: CHECKPOINT_EVERY });
  expect(whole.broken).toEqual([]);
  expect(whole.events).toBeGreaterThanOrEqual(TARGET);
  expect(whole.hashed).toBe(whole.events);
  expect(whole.checkpoints.map((c) => c.events)).toEqual([
    ...Array.from(
      { length: Math.floor(whole.events / CHECKPOINT_EVERY) },
      (_, i) => (i + 1) * CHECKPOINT_EVERY,
    ),
    ...(whole.events % CHECKPOINT_EVERY === 0 ? [] : [whole.events]),
  ]);
  expect(whole.checkpoints.at(-1)!.digest).toBe(whole.digest);
  // The checkpoints of this run, given to the next, hold: the log is exactly what it was.
  const again = await verifyLog(store, { checkpointEvery: CHECKPOINT_EVERY, expect: whole.checkpoints });
  expect(again.broken).toEqual([]);
  expect(again.digest).toBe(whole.digest);
  const group = await verifyLog(store, { groupId: copied });
  expect(group.broken).toEqual([]);
  expect(group.events).toBeGreaterThan(TARGET / 2); // the rest: idempotency records, wallets, sign-ins, the first group
  console.log(
    `verified ${whole.events} events twice, then the copied group's ${group.events}, in ${(Date.now() - started) / 1000} s`,
  );
}, 900_000);
