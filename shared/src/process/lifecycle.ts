/**
 * How every process starts and stops: configuration problems are printed and exit 2; SIGTERM or
 * SIGINT stop it gracefully (in-flight work finishes, jobs are released) and a second signal, or a
 * stop that takes longer than `graceMs`, exits at once; an error nothing caught is logged and exits 1.
 * Tracing (process/tracing.ts) starts before the process does, when configured, and its last spans are
 * exported once the process has stopped.
 */
import type { Logger } from './logger';
import { startTracing, type Tracing } from './tracing';
import { ConfigError } from './env';

export interface Running {
  stop(): Promise<void>;
}

export function runProcess(
  name: string,
  start: () => Promise<{ logger: Logger; running: Running }>,
  graceMs = 30_000,
): void {
  let logger: Logger | undefined;
  const fail = (err: unknown) => {
    if (err instanceof ConfigError) {
      console.error(`${name}: ${err.message}`);
      process.exit(2);
    }
    if (logger) logger.error('fatal', { process: name, error: (err as Error)?.stack ?? String(err) });
    else console.error(err);
    process.exit(1);
  };
  let tracing: Tracing | undefined;
  startTracing(`tokenops-${name}`)
    .then((t) => (tracing = t))
    .then(start)
    .then((started) => {
      logger = started.logger;
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) {
          logger!.warn('stopping at once', { signal });
          process.exit(1);
        }
        stopping = true;
        logger!.info('stopping', { process: name, signal });
        const timer = setTimeout(() => {
          logger!.error('stop took too long: exiting', { process: name, grace_ms: graceMs });
          process.exit(1);
        }, graceMs);
        timer.unref();
        started.running
          .stop()
          .then(() => tracing?.shutdown())
          .then(() => {
            logger!.info('stopped', { process: name });
            process.exit(0);
          }, fail);
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    })
    .catch(fail);
  process.on('unhandledRejection', fail);
}
