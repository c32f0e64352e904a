/** What on-call reads of the background work: the log line and the metric of each observation. */
import { Writable } from 'node:stream';
import winston from 'winston';
import { createMetrics } from './metrics';
import { observeAttempts, observeJobs, observeLease, observeOutcomes, watchRelayLag } from './observe';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = winston.createLogger({
    format: winston.format.json(),
    transports: [
      new winston.transports.Stream({
        stream: new Writable({
          write(chunk: Buffer, _enc, done) {
            lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
            done();
          },
        }),
      }),
    ],
  });
  return { logger, lines };
}

const value = async (
  metrics: ReturnType<typeof createMetrics>,
  name: string,
  labels: Record<string, string>,
) => {
  const metric = (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) =>
    Object.entries(labels).every(([k, l]) => v.labels[k] === l),
  );
  return metric?.value;
};

const tick = () => new Promise((r) => setImmediate(r));

describe('observations for on-call', () => {
  it('a failed job: a warning while it will retry, an error once dead, each counted by fate', async () => {
    const { logger, lines } = capture();
    const metrics = createMetrics('test');
    const observe = observeJobs(logger, metrics);
    const job = { queue: 'execute', jobId: 'j-1', name: 'execute', attempts: 2, error: 'chain unavailable' };
    observe({ ...job, fate: 'retry', attempt: 1 });
    observe({ ...job, fate: 'dead', attempt: 2 });
    observe({ fate: 'stalled', queue: 'execute', jobId: 'j-2' });
    await tick();
    expect(lines.map((l) => [l.level, l.message, l.job_id, l.attempt, l.error])).toEqual([
      ['warn', 'job failed: will retry', 'j-1', 1, 'chain unavailable'],
      ['error', 'job dead: no attempts left, kept in the failed set', 'j-1', 2, 'chain unavailable'],
      ['warn', 'job stalled: its worker stopped answering; handed to another', 'j-2', undefined, undefined],
    ]);
    for (const fate of ['retry', 'dead', 'stalled'])
      expect(
        await value(metrics, 'tokenops_job_failures_total', { queue: 'execute', fate, cause: 'other' }),
      ).toBe(1);
  });

  it('a job dead because the chain did not answer, where the process puts those back by itself: counted apart (cause chain), a warning that says it runs again', async () => {
    const { logger, lines } = capture();
    const metrics = createMetrics('test');
    const observe = observeJobs(logger, metrics, (error) => error.startsWith('chain away'));
    const job = { queue: 'execute', name: 'execute', attempts: 2 };
    observe({ ...job, jobId: 'j-1', fate: 'retry', attempt: 1, error: 'chain away: refused' });
    observe({ ...job, jobId: 'j-1', fate: 'dead', attempt: 2, error: 'chain away: refused' });
    observe({ ...job, jobId: 'j-2', fate: 'dead', attempt: 2, error: 'insufficient funds' });
    await tick();
    expect(lines.map((l) => [l.level, l.message, l.job_id])).toEqual([
      ['warn', 'job failed: will retry', 'j-1'],
      ['warn', 'job dead while the chain did not answer: it runs again by itself once it answers', 'j-1'],
      ['error', 'job dead: no attempts left, kept in the failed set', 'j-2'],
    ]);
    const dead = (cause: string) =>
      value(metrics, 'tokenops_job_failures_total', { queue: 'execute', fate: 'dead', cause });
    expect([await dead('chain'), await dead('other')]).toEqual([1, 1]);
    expect(
      await value(metrics, 'tokenops_job_failures_total', {
        queue: 'execute',
        fate: 'retry',
        cause: 'chain',
      }),
    ).toBe(1);
  });

  it('a webhook attempt: counted by outcome; a failure logged with its next attempt, or as dead', async () => {
    const { logger, lines } = capture();
    const metrics = createMetrics('test');
    const observe = observeAttempts(logger, metrics);
    const attempt = { webhook_id: 'w-1', event_id: 'e-1', at: 0, latency_ms: 120 };
    observe({ ...attempt, attempt: 1, outcome: 'delivered', status_code: 200 }, { status: 'delivered' });
    observe(
      { ...attempt, attempt: 2, outcome: 'failed', status_code: 503, error: 'HTTP 503' },
      { status: 'failed', next_attempt_at: Date.UTC(2026, 0, 1) },
    );
    observe({ ...attempt, attempt: 3, outcome: 'failed', error: 'timeout' }, { status: 'dead' });
    await tick();
    expect(lines.map((l) => [l.level, l.message, l.attempt, l.status_code, l.next_attempt_at])).toEqual([
      ['warn', 'webhook attempt failed: will retry', 2, 503, '2026-01-01T00:00:00.000Z'],
      ['error', 'webhook delivery dead: its retry window is over', 3, undefined, undefined],
    ]);
    expect(await value(metrics, 'tokenops_webhook_attempts_total', { outcome: 'failed' })).toBe(2);
    expect(await value(metrics, 'tokenops_webhook_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(await value(metrics, 'tokenops_job_failures_total', { queue: 'deliver', fate: 'dead' })).toBe(1);
    expect(await value(metrics, 'tokenops_job_failures_total', { queue: 'deliver', fate: 'retry' })).toBe(1);
  });

  it('a lease: 0 on a standby from its start, 1 while held, and each change logged', async () => {
    const { logger, lines } = capture();
    const metrics = createMetrics('test');
    const observe = observeLease(logger, 'executor-relay', metrics);
    expect(await value(metrics, 'tokenops_lease_held', { lease: 'executor-relay' })).toBe(0);
    observe({ held: true, waitedMs: 10_400 });
    expect(await value(metrics, 'tokenops_lease_held', { lease: 'executor-relay' })).toBe(1);
    observe({ held: false, reason: 'lost' });
    expect(await value(metrics, 'tokenops_lease_held', { lease: 'executor-relay' })).toBe(0);
    await tick();
    expect(lines.map((l) => [l.level, l.message, l.lease, l.waited_ms])).toEqual([
      ['info', 'lease taken: this process runs it now', 'executor-relay', 10_400],
      [
        'warn',
        'lease given up: it ran out before this process renewed it (another may hold it now)',
        'executor-relay',
        undefined,
      ],
    ]);
  });

  it('an outcome: counted, and timed from the intent accepted', async () => {
    const metrics = createMetrics('test');
    observeOutcomes(metrics, () => 5_000)('confirmed', { action: 'transfer', at: 3_500 });
    expect(await value(metrics, 'tokenops_intents_total', { outcome: 'confirmed' })).toBe(1);
    const text = await metrics.registry.getSingleMetricAsString('tokenops_intent_outcome_seconds');
    expect(text).toContain(
      'tokenops_intent_outcome_seconds_sum{process="test",action="transfer",outcome="confirmed"} 1.5',
    );
  });

  it("a relay's lag: the events between its checkpoint and the head of the log", async () => {
    const metrics = createMetrics('test');
    const stop = watchRelayLag(
      metrics,
      'executor-relay',
      { headPosition: async () => ({ commit: 9n, prepare: 1_717n }) },
      async () => ({ commit: 8n, prepare: 1_700n }),
    );
    await new Promise((r) => setTimeout(r, 1_200));
    stop();
    expect(await value(metrics, 'tokenops_relay_lag_events', { relay: 'executor-relay' })).toBe(17);
  });
});
