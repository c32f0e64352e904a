/**
 * This API process's scheduler of proposals (docs/governance.md): a proposal whose quorum is in
 * executes once its governance delay has passed, with nobody signing again; one past its seven days
 * is recorded as expired. Every API instance runs one: a proposal executes once whoever asks. The
 * log away (PostgreSQL restarting) ends its follower: it follows again a moment later, from the start
 * (what it learns is idempotent), and the process goes on serving.
 */
import { startProposalScheduler, tendProposals, type Context, type Subscription } from '@tokenops/shared';
import type { Logger } from '@tokenops/shared/process';

const AGAIN_AFTER_MS = 1_000;

export function startProposals(ctx: Context, logger: Logger): { stop(): Promise<void> } {
  let current: Subscription | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const follow = () => {
    if (stopped) return;
    const running = startProposalScheduler({
      store: ctx.store,
      now: () => ctx.now(),
      tend: (groupId) => tendProposals(ctx, groupId),
      onError: (err) => logger.warn('proposal scheduler: will try again', { error: String(err) }),
    });
    current = running;
    running.done.catch((err: unknown) => {
      if (stopped) return;
      logger.warn('proposal scheduler: the log is away; following it again', { error: String(err) });
      timer = setTimeout(follow, AGAIN_AFTER_MS);
      timer.unref();
    });
  };
  follow();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current?.stop().catch(() => undefined);
    },
  };
}
