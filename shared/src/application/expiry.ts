/**
 * The allow-list expiry scheduler: records `policy.whitelist_expiring` once per type-1 entry when its
 * TTL falls under 24 hours (an entry added with less left is announced at the next tick, within
 * seconds). It follows the log for entries with a TTL, and asks the group's decider at each tick; the
 * decider says nothing twice (the group stream records the notice, appended on the revision it was
 * decided on), so two schedulers, or one restarted, never fire twice. The server topology runs one
 * under a lease in the delivery worker; the embedded default runs one in process.
 */
import { decodeEvent, streams, type GroupEvent } from '../domain/events';
import { EXPIRING_NOTICE_MS, decideWhitelistExpiring, type GroupState } from '../domain/group';
import { ofTypes, type EventStore, type Subscription } from '../event-store/port';
import type { Repository } from './repository';

export function startExpiryScheduler(deps: {
  store: EventStore;
  groups: Repository<GroupState, GroupEvent>;
  now: () => number;
  tickMs?: number;
  onError?: (err: unknown) => void;
}): Subscription {
  /** Entries with a TTL not yet announced: entry id → group and expiry. */
  const due = new Map<string, { groupId: string; expiresAt: number }>();
  const following = deps.store.subscribeToAll({
    wakeFor: ofTypes('whitelist.entry_added', 'whitelist.entry_removed', 'policy.whitelist_expiring'),
    onEvent: (recorded) => {
      const e = decodeEvent(recorded);
      if (e?.type === 'whitelist.entry_added' && e.data.ttl_expires_at !== undefined)
        due.set(e.data.entry_id, { groupId: e.data.group_id, expiresAt: e.data.ttl_expires_at });
      else if (e?.type === 'whitelist.entry_removed' || e?.type === 'policy.whitelist_expiring')
        due.delete(e.data.entry_id);
    },
  });
  let running = Promise.resolve();
  const tick = () => {
    running = running.then(async () => {
      const now = deps.now();
      for (const [entryId, entry] of due) {
        if (entry.expiresAt - now >= EXPIRING_NOTICE_MS) continue;
        try {
          await deps.groups.handle(streams.group(entry.groupId), (state) => ({
            events: decideWhitelistExpiring({ entry_id: entryId, now }, state),
            result: undefined,
          }));
          due.delete(entryId);
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
