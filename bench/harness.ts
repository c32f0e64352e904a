/**
 * A small benchmark harness: runs work with a progress bar, reports rates, and compares each figure
 * with a baseline measured in the same run (the machine is noisy: ratios, not absolute times).
 */
import { SingleBar, Presets } from 'cli-progress';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number };
  target?: string;
}

/** Runs `total` units of work across `workers` concurrent loops; returns units per second. */
export async function measure(
  label: string,
  total: number,
  workers: number,
  unit: (worker: number, i: number) => Promise<number | void>,
): Promise<number> {
  const bar = new SingleBar(
    {
      format: `  ${label.padEnd(46)} {bar} {percentage}% | {value}/{total} | ETA {eta}s`,
      hideCursor: true,
      noTTYOutput: true,
      notTTYSchedule: 2000,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  let done = 0;
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const n = await unit(w, i);
        done += typeof n === 'number' ? n : 1;
        bar.update(Math.min(i + 1, total));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  bar.stop();
  return done / seconds;
}

export function report(title: string, figures: Figure[]): string {
  const rows = figures.map((f) => {
    const ratio = f.baseline
      ? `${(f.value / f.baseline.value).toFixed(2)}x ${f.baseline.name} (${fmt(f.baseline.value)})`
      : '';
    return `| ${f.name} | ${fmt(f.value)} ${f.unit} | ${ratio} | ${f.target ?? ''} |`;
  });
  const table = [
    `### ${title}`,
    '',
    '| measure | figure | ratio to baseline (same run) | target |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(`\n${table}\n`);
  return table;
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));

/** The median of `xs`; NaN when empty. Pure. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
