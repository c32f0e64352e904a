/**
 * This API process's scheduler of proposals (docs/governance.md): a proposal whose quorum is in
 * executes once its governance delay has passed, with nobody signing again; one past its seven days
 * is recorded as expired. Every API instance runs one: a proposal executes once whoever asks.
 */
import { startProposalScheduler, tendProposals, type Context } from '@tokenops/shared';
import type { Logger } from '@tokenops/shared/process';

export const startProposals = (ctx: Context, logger: Logger) =>
  startProposalScheduler({
    store: ctx.store,
    now: () => ctx.now(),
    tend: (groupId) => tendProposals(ctx, groupId),
    onError: (err) => logger.warn('proposal scheduler: will try again', { error: String(err) }),
  });
