/** The rolling windows of the limits (design.md): both are per agent, both slide with the clock. */
export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Whether something that happened at `at` still counts at `now` in a window of `windowMs`:
 * it counts while less than the window has passed. A spend at 12:00:00 counts at 12:59:59.999 and
 * no longer at 13:00:00. A time ahead of `now` (another instance's clock) counts: the safe side.
 */
export const inWindow = (at: number, now: number, windowMs: number): boolean => now - at < windowMs;
