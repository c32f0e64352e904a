/**
 * `tokenops audit verify`: recomputes the log's hash chains and running digest (docs/audit.md) and
 * names the first broken link of each stream; exit code 1 when anything is broken.
 *
 * Two ways to run it:
 * - **Through the service** (`--group g`, signed in as the group's owner or one of its auditors): the
 *   service recomputes (GET /audit/groups/{group}/verification).
 * - **On the database itself** (`--database-url`, or `--data-dir` for the embedded default when it is
 *   stopped), read-only, with a progress bar: whoever can read the log checks it without trusting the
 *   service. `--group` narrows it to one group; without it the whole log is verified.
 *
 * `--save <file>` keeps the run's checkpoints (event counts and running digests); `--expect <file>`
 * checks a later run against them: nothing of what they covered was removed, inserted or rewritten.
 */
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OperatorComponents } from '@tokenops/client';
import { verifyLog, type DigestCheckpoint } from '@tokenops/shared';
import { PostgresEventStore, embeddedSql, serverSql } from '@tokenops/shared/adapters';
import type { Cli } from './session';

/** A verification's report: the service's answer, and what a direct run over a database gives. */
type Verification = OperatorComponents['schemas']['VerificationResponse'];

interface VerifyOptions {
  group?: string;
  databaseUrl?: string;
  schema: string;
  dataDir?: string;
  save?: string;
  expect?: string;
}

/** What a run says to people: each broken link, then a summary with the final digest. */
export function renderVerification(v: Verification): string {
  const scope = v.group ? `group ${v.group}` : 'the whole log';
  const old = v.unhashed > 0 ? ` (${v.unhashed} written before the chain existed, not verifiable)` : '';
  const summary =
    `${v.broken.length === 0 ? 'intact' : `${v.broken.length} broken`}: ${scope}, ${v.events} events` +
    `${old} in ${v.streams} streams; digest ${v.digest}`;
  const { checked, invalid } = v.governance;
  const governance =
    invalid.length === 0
      ? `governance: ${checked} proposal execution${checked === 1 ? '' : 's'}, each with its quorum of admin signatures`
      : `governance: ${invalid.length} widening change${invalid.length === 1 ? '' : 's'} without a valid quorum (of ${checked} executions checked)`;
  return [
    ...v.broken.map((b) => `${b.reason}: ${b.message}`),
    ...invalid.map((g) => `${g.reason}: ${g.message} (${g.type} ${g.event_id})`),
    summary,
    governance,
  ].join('\n');
}

function readExpected(file: string): Pick<DigestCheckpoint, 'events' | 'digest'>[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { checkpoints?: DigestCheckpoint[] };
  if (!Array.isArray(parsed.checkpoints))
    throw new Error(`${file} holds no checkpoints (write it with --save)`);
  return parsed.checkpoints.map((c) => ({ events: c.events, digest: c.digest }));
}

/** Verifies the log in the database, read-only, with a progress bar on stderr. */
async function verifyDatabase(
  o: VerifyOptions,
  expect: Pick<DigestCheckpoint, 'events' | 'digest'>[],
  progress: NodeJS.WritableStream,
) {
  const dir = o.dataDir ?? './data';
  if (!o.databaseUrl && !existsSync(join(dir, 'events')))
    throw new Error(`no event log in ${dir}/events (give --data-dir, or --database-url for PostgreSQL)`);
  const sql = o.databaseUrl
    ? await serverSql({ connectionString: o.databaseUrl, schema: o.schema, max: 2 })
    : await embeddedSql(join(dir, 'events'));
  const store = PostgresEventStore.reader(sql);
  const bar = new SingleBar({
    format: 'verify [{bar}] {percentage}% | {events} events | ETA {eta_formatted}',
    stream: progress,
    noTTYOutput: true,
    notTTYSchedule: 2_000,
    etaBuffer: 50,
  });
  try {
    const head = await store.headPosition();
    bar.start(Math.max(1, Number(head.prepare)), 0, { events: 0 });
    const report = await verifyLog(store, {
      ...(o.group !== undefined && { groupId: o.group }),
      expect,
      onProgress: (events, position) => bar.update(Number(position.prepare), { events }),
    });
    bar.update(Math.max(1, Number(head.prepare)));
    return report;
  } finally {
    bar.stop();
    await store.close();
  }
}

export function verifyCommand(audit: Command, cli: Cli): void {
  audit
    .command('verify')
    .description(
      "recompute the log's hash chains and running digest and name the first broken link (exit code 1 when one is)",
    )
    .option('--group <group>', 'only this group (required through the service)')
    .option('--database-url <url>', 'verify the PostgreSQL log directly, read-only (postgres://...)')
    .option('--schema <schema>', 'its schema', process.env.EVENTSTORE_SCHEMA ?? 'tokenops')
    .option('--data-dir <dir>', "verify the embedded default's log directly (stop `npm start` first)")
    .option('--save <file>', "write the run's checkpoints to this file, to check later runs against")
    .option('--expect <file>', 'checkpoints of an earlier run (--save): each must still hold')
    .action(async (o: VerifyOptions) => {
      const expect = o.expect ? readExpected(o.expect) : [];
      let report: Verification;
      if (o.databaseUrl || o.dataDir) {
        report = await verifyDatabase(o, expect, cli.io.err);
      } else {
        if (!o.group) throw new Error('--group is required through the service (or give --database-url)');
        const api = await cli.signIn();
        report = await api.verifyGroupLog(
          o.group,
          expect.length ? { expect: expect.map((c) => `${c.events}:${c.digest}`).join(',') } : {},
        );
      }
      if (o.save)
        writeFileSync(
          o.save,
          `${JSON.stringify({ group: report.group, checkpoints: report.checkpoints }, null, 2)}\n`,
        );
      if (report.broken.length > 0 || report.governance.invalid.length > 0) cli.io.exitCode = 1;
      cli.print(report, renderVerification);
    });
}
