import { ServiceError, type LogPosition } from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { relayCaughtUp } from './routes';

/** The log's head fixed at `head`; the relay's checkpoint read from `checkpoints` in turn (the last kept). */
function deps(head: LogPosition, checkpoints: (LogPosition | undefined)[]) {
  let reads = 0;
  const stand = {
    ctx: { store: { headPosition: async () => head } },
    deliveries: { relayCheckpoint: async () => checkpoints[Math.min(reads++, checkpoints.length - 1)] },
  } as unknown as Pick<ApiDeps, 'ctx' | 'deliveries'>;
  return { stand, reads: () => reads };
}

const at = (commit: number, prepare = commit): LogPosition => ({
  commit: BigInt(commit),
  prepare: BigInt(prepare),
});

describe('a webhook read waits for the relay to fold the caller’s own writes', () => {
  it('answers at once when the relay is at the head or past it', async () => {
    for (const checkpoint of [at(7), at(7, 9), at(8, 1)]) {
      const { stand, reads } = deps(at(7), [checkpoint]);
      await relayCaughtUp(stand, 1_000)();
      expect(reads()).toBe(1);
    }
  });

  it('waits while the relay is behind, and goes on once it has caught up', async () => {
    const { stand, reads } = deps(at(7), [undefined, at(3), at(7, 6), at(7)]);
    await relayCaughtUp(stand, 5_000)();
    expect(reads()).toBe(4);
  });

  it('answers 503 with Retry-After, not a stale store, when the relay stays behind', async () => {
    const { stand, reads } = deps(at(7), [at(6)]);
    const refused = await relayCaughtUp(stand, 100)().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ code: 'service_unavailable', status: 503, retryAfterSeconds: 1 });
    expect(reads()).toBeGreaterThan(1); // it polled, then gave up
  });
});
