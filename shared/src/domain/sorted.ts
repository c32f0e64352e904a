/**
 * A sequence kept in time order that grows at its end in O(1) yet is never changed in place as any
 * holder sees it: versions share one buffer, each seeing its first `length` items. Appending to the
 * version that ends the buffer pushes onto it; appending to an older version, or out of order, copies.
 * Events arrive nearly always in time order, so a fold over an agent's spends appends, where an
 * immutable array copy per event made it quadratic in the spends of an hour.
 */
export class Sorted<T> {
  private constructor(
    private readonly buffer: T[],
    readonly length: number,
    private readonly timeOf: (item: T) => number,
  ) {}

  static empty<T>(timeOf: (item: T) => number): Sorted<T> {
    return new Sorted<T>([], 0, timeOf);
  }

  get(i: number): T {
    return this.buffer[i]!;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i += 1) yield this.buffer[i]!;
  }

  /** How many items are at or before time `t`. */
  atOrBefore(t: number): number {
    let [low, high] = [0, this.length];
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.timeOf(this.buffer[mid]!) <= t) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** With `item` in its place (after those of the same time: arrival order). */
  with(item: T): Sorted<T> {
    const at = this.timeOf(item);
    // Stryker disable next-line all: the fast path; the copying path below gives the same sequence
    if (this.length === 0 || this.timeOf(this.buffer[this.length - 1]!) <= at) {
      // Stryker disable next-line all: sharing the buffer or copying it, the same sequence
      if (this.buffer.length === this.length) {
        this.buffer.push(item);
        return new Sorted(this.buffer, this.length + 1, this.timeOf);
      }
      const copy = this.buffer.slice(0, this.length);
      copy.push(item);
      return new Sorted(copy, copy.length, this.timeOf);
    }
    const i = this.atOrBefore(at);
    const copy = [...this.buffer.slice(0, i), item, ...this.buffer.slice(i, this.length)];
    return new Sorted(copy, copy.length, this.timeOf);
  }

  /** With the item at `i` replaced (its time unchanged). */
  replaced(i: number, item: T): Sorted<T> {
    const copy = this.buffer.slice(0, this.length);
    copy[i] = item;
    return new Sorted(copy, copy.length, this.timeOf);
  }

  /** Without the items at or before time `t`. */
  after(t: number): Sorted<T> {
    const n = this.atOrBefore(t);
    if (n === 0) return this;
    const copy = this.buffer.slice(n, this.length);
    return new Sorted(copy, copy.length, this.timeOf);
  }

  findIndex(test: (item: T) => boolean): number {
    for (let i = 0; i < this.length; i += 1) if (test(this.buffer[i]!)) return i;
    return -1;
  }
}
