/**
 * The schedulers of what the clock decides: announcing allow-list entries about to expire (once per
 * type-1 entry when its TTL falls under 24 hours: `policy.whitelist_expiring`) and expiring held spends
 * whose approval waited past its ttl (`approval.decided` expired, the intent failed, its reservation
 * released). One follower of the log learns the deadlines; a tick acts on those that came. Each act
 * asks a decider that says nothing twice (appended on the revision it was decided on), so two
 * schedulers, or one restarted, never fire twice. The server topology runs one under a lease in the
 * delivery worker; the embedded default runs one in process.
 */
import type { ApprovalEvent, DomainEvent, GroupEvent, IntentData } from '../domain/events';
import { decodeEvent, streams } from '../domain/events';
import { EXPIRING_NOTICE_MS, decideWhitelistExpiring, type GroupState } from '../domain/group';
import { ofTypes, type EventStore, type Subscription } from '../event-store/port';
import type { Repository } from './repository';
import { expireHeld, type ApprovalContext } from './approvals';

/** One kind of deadline: what the log says about it, and what to do when it comes. */
interface Deadlines {
  types: readonly string[];
  /** Updates the deadlines (key → when) from one event of `types`. */
  learn(e: DomainEvent, due: Map<string, Due>): void;
}
interface Due {
  at: number;
  /** Does what came due; a time answered is when to act again (the deadline moved), none: done. */
  act(now: number): Promise<number | void>;
}

/** What every scheduler of deadlines takes: the log it follows, the clock, its tick, its errors' sink. */
interface SchedulerDeps {
  store: EventStore;
  now: () => number;
  tickMs?: number;
  onError?: (err: unknown) => void;
}

function startDeadlines(deps: SchedulerDeps & { kinds: readonly Deadlines[] }): Subscription {
  const due = new Map<string, Due>();
  const following = deps.store.subscribeToAll({
    wakeFor: ofTypes(...deps.kinds.flatMap((k) => k.types)),
    onEvent: (recorded) => {
      const e = decodeEvent(recorded);
      if (e) for (const kind of deps.kinds) if (kind.types.includes(e.type)) kind.learn(e, due);
    },
  });
  let running = Promise.resolve();
  const tick = () => {
    running = running.then(async () => {
      const now = deps.now();
      for (const [key, deadline] of due) {
        if (deadline.at > now) continue;
        try {
          const again = await deadline.act(now);
          if (typeof again === 'number' && again > now) deadline.at = again;
          else due.delete(key);
        } catch (err) {
          deps.onError?.(err); // the store is away: the next tick asks again
          return;
        }
      }
    });
  };
  const timer = setInterval(tick, deps.tickMs ?? 1_000);
  timer.unref();
  return {
    done: following.done.finally(() => clearInterval(timer)),
    stop: async () => {
      clearInterval(timer);
      await following.stop();
      await running;
    },
  };
}

/** Allow-list entries with a TTL not yet announced: announced 24 hours before it. */
const whitelistExpiring = (groups: Repository<GroupState, GroupEvent>): Deadlines => ({
  types: ['whitelist.entry_added', 'whitelist.entry_removed', 'policy.whitelist_expiring'],
  learn: (e, due) => {
    if (e.type === 'whitelist.entry_added' && e.data.ttl_expires_at !== undefined) {
      const { entry_id, group_id } = e.data;
      due.set(`entry:${entry_id}`, {
        at: e.data.ttl_expires_at - EXPIRING_NOTICE_MS + 1,
        act: (now) =>
          groups.handle(streams.group(group_id), (state) => ({
            events: decideWhitelistExpiring({ entry_id, now }, state),
            result: undefined,
          })),
      });
    } else if (e.type === 'whitelist.entry_removed' || e.type === 'policy.whitelist_expiring')
      due.delete(`entry:${e.data.entry_id}`);
  },
});

/** Held spends: expired at their approval's expiry unless decided before. */
const heldSpends = (ctx: ApprovalContext): Deadlines => ({
  types: ['intent.accepted', 'approval.decided'],
  learn: (e, due) => {
    if (e.type === 'intent.accepted' && e.data.held) {
      const intent: IntentData = e.data;
      due.set(`approval:${e.data.held.approval_id}`, {
        at: e.data.held.expires_at,
        act: () => expireHeld(ctx, intent),
      });
    } else if (e.type === 'approval.decided') due.delete(`approval:${(e as ApprovalEvent).data.approval_id}`);
  },
});

/**
 * A group's open proposals: each executed once its quorum and delay are in (the service's, not a
 * request's: a delay runs out with nobody signing), each recorded as expired past its time. Any event
 * that can move a deadline (a proposal, a signature, a governance policy, a member removed) asks the
 * group's proposals again at once; the answer says when next to look.
 */
const proposalDeadlines = (
  tend: (groupId: string, now: number) => Promise<number | undefined>,
): Deadlines => ({
  types: [
    'governance.proposed',
    'governance.signed',
    'governance.policy_set',
    'member.removed',
    'member.added',
  ],
  learn: (e, due) => {
    const groupId = (e.data as { group_id: string }).group_id;
    due.set(`proposals:${groupId}`, { at: (e.data as { at: number }).at, act: (now) => tend(groupId, now) });
  },
});

/**
 * The scheduler of proposals: in every API process (it makes the changes, custody wallets included);
 * safe to run in several at once, since a proposal executes once whoever asks (proposals.ts).
 */
export function startProposalScheduler(
  deps: SchedulerDeps & {
    /** Executes what is due in the group's proposals, records what expired; when next to look. */
    tend: (groupId: string, now: number) => Promise<number | undefined>;
  },
): Subscription {
  return startDeadlines({ ...deps, kinds: [proposalDeadlines(deps.tend)] });
}

export function startExpiryScheduler(
  deps: SchedulerDeps & {
    groups: Repository<GroupState, GroupEvent>;
    /** The held spends' side; absent: only the allow-list is watched. */
    approvals?: ApprovalContext;
  },
): Subscription {
  return startDeadlines({
    ...deps,
    kinds: [whitelistExpiring(deps.groups), ...(deps.approvals ? [heldSpends(deps.approvals)] : [])],
  });
}
