/**
 * How fast work a dead process held is taken over (docs/operations.md states the bounds). Every lease
 * (relays, projector, payment watcher, expiry), every lock (a swap's pool) and every job lock (BullMQ)
 * a live holder keeps is renewed about once a second and lapses `ttlMs` after the last renewal; the
 * standbys look every `pollMs` (leases) or `stallCheckMs` (BullMQ's stalled-job check). So a holder
 * killed with -9 gives its work up within about 5 s, well inside the 10 s the runbook promises, and a
 * live holder keeps it through a pause of its event loop of up to 4 s.
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
