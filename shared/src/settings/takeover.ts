/**
 * How fast work a dead process held is taken over (docs/operations.md states the bounds). Every lease
 * (relays, projector, payment watcher, expiry) and every lock (a swap's pool) a live holder keeps is
 * renewed every second and lapses `ttlMs` after the last renewal, and standbys try every `pollMs`;
 * a BullMQ job lock (EXECUTOR_LOCK_MS, at most `maxJobLockMs`) is renewed every third of it, and
 * BullMQ's stalled-job check runs every `stallCheckMs`. So a holder killed with -9 gives its work up
 * within about 5 to 7 s, inside the 10 s the runbook promises, and a live holder keeps a lease
 * through a pause of its event loop of up to 4 s.
 */
export const TAKEOVER = {
  /** Time to live of a lease or lock: how long it outlasts its holder's last renewal. */
  ttlMs: 5_000,
  /** How often a holder renews. */
  renewMs: 1_000,
  /** How often a standby tries to take a lease. */
  pollMs: 500,
  /** How often BullMQ workers look for jobs whose lock lapsed (a dead worker's) and put them back. */
  stallCheckMs: 1_000,
  /** The longest job lock EXECUTOR_LOCK_MS may set: the bound holds for every value up to it. */
  maxJobLockMs: 5_000,
  /** What the runbook promises: a dead holder's work is taken over within this, from its death. */
  boundMs: 10_000,
} as const;
