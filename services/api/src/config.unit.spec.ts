import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_COMPUTE_BUDGET, DEFAULT_RETRY } from '@tokenops/shared';
import { ConfigError, Env } from '@tokenops/shared/process';
import { executorWiring } from '@tokenops/executor';
import { readConfig } from './config';

describe("the embedded default's configuration", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tokenops-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the executor's wiring as the executor does: jobs at once, retries, the payment watcher's intervals and the compute budget", () => {
    const vars = {
      DATA_DIR: dir,
      EXECUTOR_CONCURRENCY: '32',
      EXECUTOR_RETRY_ATTEMPTS: '3',
      PAYMENT_WATCH_INTERVAL_MS: '500',
      PAYMENT_SWEEP_INTERVAL_MS: '5000',
      PRIORITY_FEE: 'auto',
      PRIORITY_FEE_PERCENTILE: '90',
      PRIORITY_FEE_MAX_MICROLAMPORTS: '50000',
      COMPUTE_UNIT_MARGIN_PERCENT: '10',
    };
    const config = readConfig(vars);
    expect(config.executor).toEqual({
      concurrency: 32,
      retry: { ...DEFAULT_RETRY, attempts: 3 },
      payments: { intervalMs: 500, sweepMs: 5_000 },
      computeBudget: {
        setting: { kind: 'auto' },
        percentile: 90,
        maxMicroLamports: 50_000n,
        marginPercent: 10,
      },
    });
    expect(readConfig({ DATA_DIR: dir, PRIORITY_FEE: '25000' }).executor.computeBudget.setting).toEqual({
      kind: 'fixed',
      microLamports: 25_000n,
    });
    expect(readConfig({ DATA_DIR: dir }).executor.computeBudget).toEqual(DEFAULT_COMPUTE_BUDGET);
    expect(config.executor).toEqual(executorWiring(new Env(vars, 'executor')));
    // Each process its own default: the embedded executor shares one thread and one database.
    expect(readConfig({ DATA_DIR: dir }).executor).toEqual(executorWiring());
    expect(executorWiring().concurrency).toBe(64);
    expect(executorWiring(new Env({}, 'executor')).concurrency).toBe(16);
  });

  it("fails at start naming each bad setting and its bounds, the API's bounds included", () => {
    const read = () =>
      readConfig({
        DATA_DIR: dir,
        OUTCOME_TIMEOUT_MS: '600001',
        PAYMENT_WATCH_INTERVAL_MS: '5',
        PRIORITY_FEE: 'fast',
        DEMO: 'no',
      });
    expect(read).toThrow(ConfigError);
    expect(() => read()).toThrow(
      [
        'invalid configuration:',
        '  - OUTCOME_TIMEOUT_MS=600001: expected a whole number from 1 to 600000',
        '  - PAYMENT_WATCH_INTERVAL_MS=5: expected a whole number from 100 to 600000',
        '  - PRIORITY_FEE=fast: PRIORITY_FEE must be auto, off or a whole number of micro-lamports, not fast',
        '  - DEMO=no: expected true or false',
      ].join('\n'),
    );
    expect(readConfig({ DATA_DIR: dir, OUTCOME_TIMEOUT_MS: '1' }).outcomeTimeoutMs).toBe(1);
  });

  it('fails at start naming each WEBHOOK_ALLOWED_PRIVATE_HOSTS entry that is neither host nor host:port', () => {
    const read = () =>
      readConfig({ DATA_DIR: dir, WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.2:8443,127.0.0.2:0,https://x' });
    expect(read).toThrow(ConfigError);
    const why = (entry: string) =>
      `  - WEBHOOK_ALLOWED_PRIVATE_HOSTS: ${entry} is not a host name or an IP address with an optional port (host or host:port, [IPv6]:port; no scheme, no path)`;
    expect(read).toThrow(['invalid configuration:', why('127.0.0.2:0'), why('https://x')].join('\n'));
    expect(
      readConfig({ DATA_DIR: dir, WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.2:8443,hooks.test' }).webhooks
        .allowedPrivateHosts,
    ).toEqual(['127.0.0.2:8443', 'hooks.test']);
  });
});
