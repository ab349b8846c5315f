import { classify, MAX_ATTEMPTS, retryDelayMs } from './retry-policy';

describe('retry policy', () => {
  it('should wait about 30 s, 2 min, 10 min, 1 h, 6 h and 24 h, then stop', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, middle))).toEqual([30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000]);
    expect(retryDelayMs(7, middle)).toBeNull();
    expect(MAX_ATTEMPTS).toBe(7);
  });

  it('should spread each delay by at most 20 %', () => {
    expect(retryDelayMs(1, () => 0)).toBe(24_000);
    expect(retryDelayMs(1, () => 0.999999)).toBe(36_000);
    expect(retryDelayMs(6, () => 0)).toBe(69_120_000);
  });

  it('should treat 2xx as success, 410 as gone and the rest as failures', () => {
    expect(classify(200).kind).toBe('success');
    expect(classify(204).kind).toBe('success');
    expect(classify(410).kind).toBe('gone');
    for (const status of [301, 400, 404, 429, 500, 503, null]) expect(classify(status).kind).toBe('failure');
  });
});
