/** How long a job's retries take: what docs/operations.md and the settings catalogue say of them. */
import { DEFAULT_RETRY, backoffDelay, retrySpan } from './port';

describe('retrySpan', () => {
  it('the default (8 attempts, 500 ms doubling, half of each delay random): the last attempt 31.75 to 63.5 s after the first, 47.625 s at the median', () => {
    expect(retrySpan(DEFAULT_RETRY)).toEqual({ minMs: 31_750, medianMs: 47_625, maxMs: 63_500 });
    expect(retrySpan({ ...DEFAULT_RETRY, attempts: 1 })).toEqual({ minMs: 0, medianMs: 0, maxMs: 0 });
    expect(retrySpan({ attempts: 3, backoffMs: 100, jitter: 0 })).toEqual({
      minMs: 300,
      medianMs: 300,
      maxMs: 300,
    });
  });

  it('is what the delays the queues draw add up to: every sum in the range, their median its middle', () => {
    const span = retrySpan(DEFAULT_RETRY);
    const sums = Array.from({ length: 20_000 }, () => {
      let total = 0;
      for (let retry = 1; retry < DEFAULT_RETRY.attempts; retry++)
        total += backoffDelay(DEFAULT_RETRY, retry, Math.random());
      return total;
    }).sort((a, b) => a - b);
    expect(sums[0]).toBeGreaterThanOrEqual(span.minMs - 7); // each delay rounded to the millisecond
    expect(sums.at(-1)).toBeLessThanOrEqual(span.maxMs + 7);
    const median = sums[sums.length / 2]!;
    expect(Math.abs(median - span.medianMs)).toBeLessThan(300); // 1.5 % of the sums' spread
  });
});
