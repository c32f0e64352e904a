import { DEFAULT_DELIVERY_RETRY, retryDelay } from './deliver';

describe('the retry schedule', () => {
  it('waits between half and all of base × 2^(n-1) before the n-th retry', () => {
    for (const n of [1, 2, 3, 5]) {
      const ceiling = 5_000 * 2 ** (n - 1);
      expect(retryDelay(DEFAULT_DELIVERY_RETRY, n, 0)).toBe(ceiling / 2);
      expect(retryDelay(DEFAULT_DELIVERY_RETRY, n, 0.999_999)).toBeCloseTo(ceiling, -1);
    }
  });

  it('never waits more than an hour', () => {
    expect(retryDelay(DEFAULT_DELIVERY_RETRY, 30, 0.999_999)).toBeLessThanOrEqual(3_600_000);
    expect(retryDelay(DEFAULT_DELIVERY_RETRY, 30, 0)).toBe(1_800_000);
  });

  it('retries for three days by default', () => {
    expect(DEFAULT_DELIVERY_RETRY.forMs).toBe(3 * 24 * 60 * 60 * 1000);
  });
});
