import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { autoStepMs, instantWindow, parseTime, resolveWindow } from '../../src/query/timeRange.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const LIMITS = { defaultMaxDataPoints: 1000, maxPointsPerSeries: 11_000 };

describe('time formats', () => {
  const ctx = { nowMs: NOW, endMs: NOW - 60_000 };
  it.each([
    ['now', NOW],
    ['epoch', 0],
    ['e', NOW - 60_000],
    ['now-15m', NOW - 15 * 60_000],
    ['now-2d', NOW - 2 * 86_400_000],
    ['e-3w', NOW - 60_000 - 3 * 7 * 86_400_000],
    ['e-1h30m', NOW - 60_000 - 90 * 60_000],
    ['now+5m', NOW + 5 * 60_000],
    ['NOW-1h', NOW - 3_600_000],
    ['1700000000', 1_700_000_000_000],
    ['1700000000123', 1_700_000_000_123],
    ['1700000000.5', 1_700_000_000_500],
    ['2026-01-15T11:00:00Z', NOW - 3_600_000],
    ['2026-01-15T13:00:00+01:00', NOW],
    ['2026-01-15T11:59:59.250Z', NOW - 750],
  ])('parses %s', (text, expected) => {
    expect(parseTime(text, 's', ctx)).toBe(expected);
  });

  it.each(['yesterday', 'now-15x', '12345678901234567890123', '2026-13-45', '', 'e-'])('rejects %j', (text) => {
    expect(() => parseTime(text, 's', ctx)).toThrow(ApiError);
  });

  it('refuses e inside e', () => {
    expect(() => parseTime('e-1h', 'e', { nowMs: NOW })).toThrow(/only be used in s/);
  });
});

describe('query window', () => {
  it('defaults to the last hour ending now', () => {
    const w = resolveWindow({}, LIMITS, NOW);
    expect(w).toMatchObject({ startMs: NOW - 3_600_000, endMs: NOW });
  });

  it('rejects e before s with VALIDATION_FAILED', () => {
    try {
      resolveWindow({ s: 'now', e: 'now-1h' }, LIMITS, NOW);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('VALIDATION_FAILED');
    }
  });

  it('is an instant query exactly when s equals e, as the /query endpoints build theirs', () => {
    const at = resolveWindow({ s: 'now-5m', e: 'now-5m' }, LIMITS, NOW);
    expect(at).toMatchObject({ startMs: NOW - 300_000, endMs: NOW - 300_000, points: 1, instant: true });
    expect(resolveWindow({ s: 'now-5m', e: 'now-5m', step: 60 }, LIMITS, NOW).instant).toBe(true);
    // One point, but over a range: s before e, even by less than a step, stays a range query.
    expect(resolveWindow({ s: 'now-5m', e: 'now-4m', step: 3600 }, LIMITS, NOW)).toMatchObject({ points: 1, instant: false });
    expect(resolveWindow({}, LIMITS, NOW).instant).toBe(false);
    expect(instantWindow(NOW)).toMatchObject({ startMs: NOW, endMs: NOW, points: 1, instant: true });
  });

  it('lets an explicit step win over maxDataPoints', () => {
    expect(resolveWindow({ s: 'now-1h', step: 60, maxDataPoints: 5 }, LIMITS, NOW)).toMatchObject({ stepMs: 60_000, points: 61 });
  });

  it('picks a nice automatic step that keeps points within the budget', () => {
    for (const [windowMs, budget] of [
      [3_600_000, 1000],
      [3_600_000, 100],
      [86_400_000, 1440],
      [30 * 86_400_000, 500],
      [365 * 86_400_000, 50],
      [1000, 2],
    ] as const) {
      const step = autoStepMs(windowMs, budget);
      expect(Math.floor(windowMs / step) + 1).toBeLessThanOrEqual(budget);
    }
    expect(autoStepMs(3_600_000, 1000)).toBe(5000);
    expect(autoStepMs(86_400_000, 1440)).toBe(120_000);
  });

  it('rejects more points per series than the limit', () => {
    expect(() => resolveWindow({ s: 'now-1d', step: 1 }, LIMITS, NOW)).toThrow(/more than the limit of 11000/);
  });

  it.each([{ step: -1 }, { step: 1.5 }, { step: '60' }, { maxDataPoints: 0 }])('rejects %j', (body) => {
    expect(() => resolveWindow(body, LIMITS, NOW)).toThrow(ApiError);
  });
});
