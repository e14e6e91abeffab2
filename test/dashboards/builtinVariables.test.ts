import { describe, expect, it } from 'vitest';
import {
  builtinText,
  computeBuiltinValues,
  formatInterval,
  fillDashboardVariables,
  roundInterval,
  substituteBuiltins,
  type DashboardVariable,
  type BuiltinName,
  type TimeContext,
} from '../../src/dashboards/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TO = Date.UTC(2026, 10, 25, 12, 0, 0);

/** textsFor renders every built-in for a panel showing the `rangeMs` before TO. */
function textsFor(rangeMs: number, extra: Partial<TimeContext> = {}): Record<BuiltinName, string> {
  const values = computeBuiltinValues({ fromMs: TO - rangeMs, toMs: TO, ...extra });
  const names: BuiltinName[] = ['__interval', '__interval_ms', '__rate_interval', '__rate_interval_ms', '__range', '__range_s', '__range_ms', '__auto', '__from', '__to'];
  return Object.fromEntries(names.map((n) => [n, builtinText(n, values)])) as Record<BuiltinName, string>;
}

describe("Grafana's interval rounding", () => {
  it('rounds to the nice step halfway bounds pick', () => {
    expect(roundInterval(412)).toBe(500);
    expect(roundInterval(2_400)).toBe(2_000);
    expect(roundInterval(14_400)).toBe(15_000);
    expect(roundInterval(73_000)).toBe(60_000);
    expect(roundInterval(86_400)).toBe(60_000);
    expect(roundInterval(100_000)).toBe(120_000);
    expect(roundInterval(604_800)).toBe(600_000);
    expect(roundInterval(2_592_000)).toBe(1_800_000);
    expect(roundInterval(5 * DAY)).toBe(DAY);
    expect(roundInterval(10 * DAY)).toBe(7 * DAY);
    expect(roundInterval(30 * DAY)).toBe(30 * DAY);
    expect(roundInterval(400 * DAY)).toBe(365 * DAY);
  });

  it('writes intervals in their largest whole unit, exactly when not whole', () => {
    expect(formatInterval(15_000)).toBe('15s');
    expect(formatInterval(60_000)).toBe('1m');
    expect(formatInterval(2 * HOUR)).toBe('2h');
    expect(formatInterval(DAY)).toBe('1d');
    expect(formatInterval(500)).toBe('500ms');
    expect(formatInterval(90_000)).toBe('1m30s');
  });
});

describe('built-in variables for a panel', () => {
  it('last hour at the default 1500 points: $__interval is held at the 15s scrape interval, $__rate_interval at four scrapes', () => {
    expect(textsFor(HOUR)).toMatchObject({
      __interval: '15s',
      __interval_ms: '15000',
      __rate_interval: '1m',
      __rate_interval_ms: '60000',
      __range: '3600s',
      __range_s: '3600',
      __range_ms: '3600000',
      __auto: '15s',
      __from: String(TO - HOUR),
      __to: String(TO),
    });
  });

  it('last 24 hours at 1000 points: 86.4s rounds to 1m, and $__rate_interval adds a scrape', () => {
    expect(textsFor(DAY, { maxDataPoints: 1000 })).toMatchObject({ __interval: '1m', __rate_interval: '1m15s', __rate_interval_ms: '75000' });
  });

  it('last 7 days at 1000 points: 604.8s rounds to 10m', () => {
    expect(textsFor(7 * DAY, { maxDataPoints: 1000 })).toMatchObject({ __interval: '10m', __interval_ms: '600000', __rate_interval: '10m15s' });
  });

  it('last 30 days at 1000 points: 2592s rounds to 30m', () => {
    expect(textsFor(30 * DAY, { maxDataPoints: 1000 })).toMatchObject({ __interval: '30m', __rate_interval: '30m15s' });
  });

  it('a longer scrape interval raises both floors', () => {
    expect(textsFor(HOUR, { scrapeIntervalMs: 30_000 })).toMatchObject({ __interval: '30s', __rate_interval: '2m' });
  });

  it('a panel minimum interval bounds $__interval from below', () => {
    expect(textsFor(HOUR, { minIntervalMs: 60_000 })).toMatchObject({ __interval: '1m', __rate_interval: '1m15s' });
  });

  it('$__auto is the step for a range query and the whole range for an instant one', () => {
    expect(textsFor(6 * HOUR, { maxDataPoints: 100 }).__auto).toBe('5m');
    expect(textsFor(6 * HOUR, { maxDataPoints: 100, queryType: 'instant' }).__auto).toBe('21600s');
  });

  it('rounds $__range to whole seconds', () => {
    expect(textsFor(1_500)).toMatchObject({ __range: '2s', __range_s: '2', __range_ms: '1500' });
  });
});

describe('substituting built-ins into a query', () => {
  const day: TimeContext = { fromMs: TO - DAY, toMs: TO, maxDataPoints: 1000 };

  it('replaces every form and leaves dashboard variables alone', () => {
    expect(substituteBuiltins('sum(rate(http_requests_total{job="$job"}[$__rate_interval]))', day)).toBe('sum(rate(http_requests_total{job="$job"}[1m15s]))');
    expect(substituteBuiltins('increase(x[${__range}]) / ${__range_s} * $__interval_ms', day)).toBe('increase(x[86400s]) / 86400 * 60000');
  });

  it('writes the dates the formats ask for, and leaves a format it does not know', () => {
    expect(substituteBuiltins('"${__from:date}" "${__to:date:iso}" ${__to:date:seconds} $__to', day)).toBe(
      `"${new Date(TO - DAY).toISOString()}" "${new Date(TO).toISOString()}" ${TO / 1000} ${TO}`,
    );
    expect(substituteBuiltins('"${__from:date:YYYY}"', day)).toBe('"${__from:date:YYYY}"');
  });
});

describe('filling dashboard variables for a run', () => {
  const variable = (extra: Partial<DashboardVariable>): DashboardVariable => ({ name: 'svc', kind: 'query', source: { signal: 'metrics', metric: 'up', label: 'job' }, ...extra });

  it('writes one value as it is, several as an escaped alternation, All as .+', () => {
    expect(fillDashboardVariables('up{job=~"$svc"}', [variable({ defaultValue: ['a.b'] })], {})).toBe('up{job=~"a.b"}');
    expect(fillDashboardVariables('up{job=~"${svc}"}', [variable({ multi: true })], { svc: ['a.b', 'c'] })).toBe('up{job=~"(a\\.b|c)"}');
    expect(fillDashboardVariables('up{job=~"$svc"}', [variable({ multi: true, includeAll: true })], {})).toBe('up{job=~".+"}');
  });

  it('names the variable that has no value', () => {
    expect(() => fillDashboardVariables('up{job="$svc"}', [variable({})], {})).toThrow(/\$svc has no value/);
    expect(() => fillDashboardVariables('up{job="$other"}', [variable({})], {})).toThrow(/\$other, which the dashboard does not define/);
  });
});
