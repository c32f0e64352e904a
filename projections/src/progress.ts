/**
 * The replay's progress bar (cli-progress): one bar per phase that goes over the log (build, verify),
 * counting the events replayed, with the share of the log done, an ETA and the rate; the other
 * phases (load, catch-up) a line each. On a terminal it redraws in place; piped, it prints a line every
 * two seconds and one when the phase ends.
 */
import { Presets, SingleBar } from 'cli-progress';
import type { ReplayProgress } from './rebuild';

const OVER_THE_LOG = new Set<ReplayProgress['phase']>(['build', 'verify']);

export function replayProgressBar(stream: NodeJS.WritableStream = process.stderr) {
  let bar: SingleBar | undefined;
  let phase: ReplayProgress['phase'] | undefined;
  let started = 0;
  const end = () => {
    bar?.stop();
    bar = undefined;
  };
  return {
    onProgress(p: ReplayProgress): void {
      if (p.phase !== phase) {
        end();
        phase = p.phase;
        started = Date.now();
        if (!OVER_THE_LOG.has(p.phase)) {
          stream.write(`${p.phase}: ${p.events} events\n`);
          return;
        }
        bar = new SingleBar(
          {
            format: '{phase} [{bar}] {percentage}% | {events} events | ETA {eta_formatted} | {speed} ev/s',
            etaBuffer: 1_000,
            etaAsynchronousUpdate: true,
            noTTYOutput: true,
            notTTYSchedule: 2_000,
            stream,
          },
          Presets.shades_classic,
        );
        // An empty log is done at once: 0 of 0 reads as complete, not as 0 of 1.
        bar.start(Math.max(p.total, 1), p.total === 0 ? 1 : p.done, { phase: p.phase, events: 0, speed: 0 });
      }
      if (!bar) return;
      const seconds = (Date.now() - started) / 1000;
      bar.setTotal(Math.max(p.total, 1));
      bar.update(p.total === 0 ? 1 : p.done, {
        events: p.events,
        speed: seconds > 0 ? Math.round(p.events / seconds) : 0,
      });
    },
    stop: end,
  };
}
