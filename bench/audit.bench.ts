/**
 * The auditor's reads of one group's log of 100,000 events in PostgreSQL (BENCH_SCALE scales it):
 * the NDJSON export over HTTP from an API process, and `audit verify` on the database (hash chains and
 * running digest recomputed), each beside the raw catch-up read of the same log in the same run.
 *
 * The log is real traffic multiplied (rebuild.bench.ts): agents registered, funded and transferring,
 * appended again and again with agent and intent ids renamed, all in one group.
 */
import { verifyLog } from '@tokenops/shared';
import { PostgresEventStore, serverSql } from '@tokenops/shared/adapters';
import { Client, signIn } from '@tokenops/testing/harness';
import { Topology } from '@tokenops/testing/topology';
import { report } from './harness';
import { copier, rawCatchUp, template, writeCopies } from './rebuild.bench';

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
    await writeCopies(store, copy, events.length, target);
    const raw = await rawCatchUp(store, PAGE);
    const read = Number((await store.headPosition()).prepare);

    console.log('  NDJSON export over HTTP…');
    let started = Date.now();
    const res = await fetch(`${topology.apis[0]!.url}/api/v1/audit/groups/${group}/events`, {
      headers: { authorization: `Bearer ${operator.token}`, accept: 'application/x-ndjson' },
    });
    let exported = 0;
    for await (const chunk of res.body!) {
      const bytes = Buffer.from(chunk as Uint8Array);
      for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) exported++;
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
