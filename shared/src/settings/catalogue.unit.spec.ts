import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Env } from '../process/env';
import { PROCESSES, SETTING_NAMES, defaultFor, settingSpec } from './catalogue';
import { withEmbeddedSettingsTable, withServerSettingsTable } from './table';

const ROOT = join(__dirname, '../../..');

/** The production source of the processes (what Env's readers live in), the catalogue aside. */
function productionSource(): string {
  const dirs = ['shared/src', 'services/api/src', 'services/chain/src', 'projections/src', 'workers'];
  return dirs
    .flatMap((dir) =>
      (readdirSync(join(ROOT, dir), { recursive: true }) as string[]).map((file) => join(dir, file)),
    )
    .filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !/testing|fuzz|node_modules/.test(file),
    )
    .filter((file) => !file.endsWith('settings/catalogue.ts'))
    .map((file) => readFileSync(join(ROOT, file), 'utf8'))
    .join('\n');
}

/** Read by the OpenTelemetry SDK itself, not by our code. */
const READ_BY_THE_SDK = ['OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG'];

describe('the settings catalogue', () => {
  it('is the same table as README.md (the embedded default) and docs/operations.md (every process)', () => {
    for (const [file, rewrite] of [
      ['README.md', withEmbeddedSettingsTable],
      ['docs/operations.md', withServerSettingsTable],
    ] as const) {
      const doc = readFileSync(join(ROOT, file), 'utf8');
      expect(rewrite(doc)).toBe(doc);
    }
  });

  it('gives every number a default within its bounds, for each process that reads it', () => {
    for (const name of SETTING_NAMES) {
      const spec = settingSpec(name);
      expect(spec.processes.length).toBeGreaterThan(0);
      expect(spec.processes.every((p) => PROCESSES.includes(p))).toBe(true);
      if (spec.type !== 'int') continue;
      expect(spec.min).toBeLessThanOrEqual(spec.max);
      for (const role of spec.processes) {
        const value = defaultFor(spec.default, role)!;
        expect({ name, role, inBounds: value >= spec.min && value <= spec.max }).toEqual({
          name,
          role,
          inBounds: true,
        });
      }
    }
  });

  it('lists no setting that nothing reads', () => {
    const source = productionSource();
    const unread = SETTING_NAMES.filter(
      (name) => !READ_BY_THE_SDK.includes(name) && !source.includes(`'${name}'`),
    );
    expect(unread).toEqual([]);
  });

  it('lets a process read only the settings it is listed for: another is a programming error', () => {
    expect(() => Env.of('projector').int('OUTCOME_TIMEOUT_MS')).toThrow(
      /projector reads OUTCOME_TIMEOUT_MS, which .*settings\/catalogue.ts does not give it/,
    );
    expect(new Env({}, 'api').int('OUTCOME_TIMEOUT_MS')).toBe(30_000);
  });

  it('gives each process its own default where they differ (PORT, DATA_DIR)', () => {
    const ports = Object.fromEntries(
      (['embedded', 'api', 'projector', 'executor', 'delivery', 'chain'] as const).map((p) => [
        p,
        new Env({}, p).listenAddress().port,
      ]),
    );
    expect(ports).toEqual({
      embedded: 8080,
      api: 8080,
      projector: 9101,
      executor: 9102,
      delivery: 9104,
      chain: 8899,
    });
    expect(new Env({}, 'chain').text('DATA_DIR')).toBe('./data/chain');
    expect(new Env({}, 'embedded').text('DATA_DIR')).toBe('./data');
  });
});
