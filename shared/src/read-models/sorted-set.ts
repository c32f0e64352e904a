/**
 * A sorted set as Redis keeps one: members with a score, ranked by score, then by member. Kept as an
 * array in rank order beside a map of each member's score, so a range is a binary search and a walk
 * (no sort per read), and the common writes (a member added at the newest end, the oldest dropped
 * from a window) touch one end of the array. The members handed out are frozen and shared: a range
 * allocates its array, not its members.
 */
import type { ScoredMember } from './port';

/** Redis's rank order: by score, then by member. */
const before = (a: ScoredMember, score: number, member: string): boolean =>
  a.score < score || (a.score === score && a.member < member);

export class SortedSet {
  private readonly scores = new Map<string, number>();
  private readonly ranked: ScoredMember[] = [];

  get size(): number {
    return this.ranked.length;
  }

  /** Adds the member, or moves it to its new score. */
  add(member: string, score: number): void {
    const old = this.scores.get(member);
    if (old === score) return;
    if (old !== undefined) this.ranked.splice(this.rankOf(old, member), 1);
    this.scores.set(member, score);
    this.ranked.splice(this.rankOf(score, member), 0, Object.freeze({ member, score }));
  }

  delete(member: string): void {
    const score = this.scores.get(member);
    if (score === undefined) return;
    this.scores.delete(member);
    this.ranked.splice(this.rankOf(score, member), 1);
  }

  /** Drops the members scored at most `max`. */
  deleteUpTo(max: number): void {
    this.dropLowest(this.firstAbove(max));
  }

  /** Keeps the `keep` highest ranked members. */
  trim(keep: number): void {
    this.dropLowest(Math.max(0, this.ranked.length - keep));
  }

  /** The members with min <= score <= max, in rank order (highest first when `reverse`), at most `limit`. */
  range(min: number, max: number, reverse = false, limit = Infinity): ScoredMember[] {
    const from = this.rankOf(min, '');
    const to = this.firstAbove(max);
    const count = Math.max(0, Math.min(to - from, limit));
    return reverse ? this.ranked.slice(to - count, to).reverse() : this.ranked.slice(from, from + count);
  }

  /** Every member with its score, in rank order. */
  entries(): [string, number][] {
    return this.ranked.map((m) => [m.member, m.score]);
  }

  private dropLowest(count: number): void {
    for (const { member } of this.ranked.splice(0, count)) this.scores.delete(member);
  }

  /** The rank where (score, member) is or would be: the first member not ranked before it. */
  private rankOf(score: number, member: string): number {
    return this.firstWhere((m) => !before(m, score, member));
  }

  /** The rank of the first member scored above `max`. */
  private firstAbove(max: number): number {
    return this.firstWhere((m) => m.score > max);
  }

  /** The first rank where `holds` is true: a binary search, as it holds for every member after it too. */
  private firstWhere(holds: (m: ScoredMember) => boolean): number {
    let low = 0;
    let high = this.ranked.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (holds(this.ranked[mid]!)) high = mid;
      else low = mid + 1;
    }
    return low;
  }
}
