/**
 * The auditor's reads of one group's log of 100,000 events in PostgreSQL (BENCH_SCALE scales it):
 * the NDJSON export over HTTP from an API process, and `audit verify` on the database (hash chains and
 * running digest recomputed), each beside the raw catch-up read of the same log in the same run.
 *
 * The log is real traffic multiplied (rebuild.bench.ts): agents registered, funded and transferring,
 * appended again and again with agent and intent ids renamed, all in one group.
 */
import { PostgresEventStore, serverSql, verifyLog, type RecordedEvent } from '@tokenops/shared';
import { Client, signIn } from '../services/api/src/testing/harness';
import { Topology } from '../services/api/src/testing/topology';
import { measure, report } from './harness';
import { copier, template } from './rebuild.bench';

const PAGE = 2_000;

export async function auditBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const target = Math.round(100_000 * scale);
  const topology = await new Topology({ apis: 1, executors: 0, projectors: 0 }).start();
  const store = await PostgresEventStore.open(
    await serverSql({
      connectionString: topology.env.EVENTSTORE_URL!,
      schema: topology.env.EVENTSTORE_SCHEMA!,
      max: 20,
    }),
  );
  try {
    const client = new Client(topology.apis[0]!.url);
    const operator = await signIn(client);
    const group = (
      await client.call<{ group_config_pda: string }>('POST', '/api/v1/orchestrator/groups', {
        token: operator.token,
        body: {},
      })
    ).body.group_config_pda;
    // The template's groups become this one (its creation left out: the group exists), and only the
    // group's own streams are kept (not idempotency records or wallets): the whole log is the group's.
    const events = (await template()).filter(
      (e) => e.type !== 'group.created' && /^(group|agent|budget|payments|webhooks)-/.test(e.stream),
    );
    const groups = new Set(events.filter((e) => e.stream.startsWith('group-')).map((e) => e.stream.slice(6)));
    const copy = copier(events, new Map([...groups].map((g) => [g, group])));
    const copies = Math.ceil(target / events.length);
    await measure(
      `writing the log (${copies} copies of ${events.length} events)`,
      copies,
      16,
      async (_w, k) => {
        for (const { stream, events: evs } of copy(k)) await store.append(stream, evs, 'any');
        return 1;
      },
    );

    console.log('  raw catch-up read of the whole log…');
    let read = 0;
    let started = Date.now();
    for (let from: RecordedEvent['position'] | undefined; ;) {
      const batch = await store.readAll({ ...(from && { from }), maxCount: PAGE });
      read += batch.length;
      if (batch.length < PAGE) break;
      from = batch[batch.length - 1]!.position;
    }
    const raw = read / ((Date.now() - started) / 1000);

    console.log('  NDJSON export over HTTP…');
    started = Date.now();
    const res = await fetch(`${topology.apis[0]!.url}/api/v1/audit/groups/${group}/events`, {
      headers: { authorization: `Bearer ${operator.token}`, accept: 'application/x-ndjson' },
    });
    let exported = 0;
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      for (const c of decoder.decode(chunk as Uint8Array, { stream: true })) if (c === '\n') exported++;
    }
    const exportRate = exported / ((Date.now() - started) / 1000);

    console.log('  audit verify on the database…');
    started = Date.now();
    const verified = await verifyLog(store, { groupId: group });
    const verifyRate = verified.events / ((Date.now() - started) / 1000);
    if (verified.broken.length > 0)
      throw new Error(`the log does not verify: ${verified.broken[0]!.message}`);

    return report(`Audit reads (one group, ${read.toLocaleString('en-US')} events in PostgreSQL)`, [
      {
        name: `NDJSON export over HTTP (${exported} events)`,
        value: exportRate,
        unit: 'events/s',
        baseline: { name: 'raw catch-up read', value: raw },
        target: '>= 0.5x raw',
      },
      {
        name: `audit verify on the database (${verified.events} events, ${verified.streams} streams)`,
        value: verifyRate,
        unit: 'events/s',
        baseline: { name: 'raw catch-up read', value: raw },
        target: '>= 0.5x raw',
      },
    ]);
  } finally {
    await store.close();
    await topology.destroy();
  }
}
