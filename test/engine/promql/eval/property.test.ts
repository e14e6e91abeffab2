/**
 * Property: a range query equals the instant query evaluated at each of its steps. The range
 * path shares work across steps (sliding windows, one storage read per selector), the instant
 * path evaluates each step alone, so agreement on random data checks the sliding machinery.
 */
import { describe, expect, it } from 'vitest';
import { labelsKey } from '../../../../engine/storage/labels.js';
import type { MetricHead } from '../../../../engine/storage/metricHead.js';
import { headWith, instant, mulberry32, range, STALE, type SeriesDef } from './helpers.js';

/** randomHead builds counters and gauges with irregular sampling, gaps and staleness markers. */
function randomHead(seed: number): MetricHead {
  const rnd = mulberry32(seed);
  const series: SeriesDef[] = [];
  for (let s = 0; s < 6; s++) {
    const samples: SeriesDef['samples'] = [];
    let t = Math.floor(rnd() * 30) * 1000;
    let counter = Math.floor(rnd() * 100);
    while (t < 3600e3) {
      if (rnd() < 0.02) samples.push([t, STALE]);
      else if (s % 2 === 0) {
        counter = rnd() < 0.03 ? Math.floor(rnd() * 10) : counter + Math.floor(rnd() * 20);
        samples.push([t, counter]);
      } else {
        samples.push([t, Math.round((rnd() * 100 - 20) * 100) / 100]);
      }
      // Mostly 15s scrapes, sometimes longer gaps.
      t += rnd() < 0.05 ? 400e3 : 15e3 + Math.floor(rnd() * 3) * 1000;
    }
    const kind = s % 2 === 0 ? 'requests_total' : 'temperature';
    series.push({ labels: { __name__: kind, job: `job${s % 3}`, instance: `i${s}` }, samples });
  }
  return headWith(series);
}

const EXPRESSIONS = [
  'requests_total',
  'rate(requests_total[5m])',
  'increase(requests_total[90s])',
  'irate(requests_total[2m])',
  'delta(temperature[3m])',
  'idelta(temperature[3m])',
  'resets(requests_total[10m])',
  'changes(temperature[10m])',
  'deriv(temperature[5m])',
  'predict_linear(temperature[5m], 60)',
  'sum_over_time(temperature[7m])',
  'avg_over_time(temperature[7m])',
  'min_over_time(temperature[4m])',
  'max_over_time(temperature[4m])',
  'stddev_over_time(temperature[6m])',
  'stdvar_over_time(temperature[6m])',
  'count_over_time(temperature[5m])',
  'quantile_over_time(0.9, temperature[5m])',
  'mad_over_time(temperature[5m])',
  'last_over_time(temperature[5m])',
  'first_over_time(temperature[5m])',
  'present_over_time(temperature[5m])',
  'ts_of_max_over_time(temperature[5m])',
  'absent_over_time(temperature{job="nope"}[5m])',
  'double_exponential_smoothing(temperature[5m], 0.3, 0.5)',
  'sum by (job) (rate(requests_total[5m]))',
  'avg without (instance) (temperature)',
  'max by (job) (temperature) - min by (job) (temperature)',
  'count(temperature > 30)',
  'stddev(temperature)',
  'quantile(0.3, temperature)',
  'topk(2, temperature)',
  'bottomk by (job) (1, temperature)',
  'count_values("v", round(temperature / 20))',
  'temperature >= on (job) group_left avg by (job) (temperature)',
  'temperature and on (job) requests_total',
  'temperature unless on (instance) requests_total',
  'requests_total or temperature',
  'rate(requests_total[5m] offset 3m)',
  'temperature offset -2m',
  'max_over_time(rate(requests_total[2m])[10m:1m])',
  'avg_over_time(temperature[10m:45s])',
  'sum_over_time(temperature[4m] @ 1800)',
  'temperature @ 2000 - temperature',
  'scalar(sum(temperature)) * 2',
  'vector(time()) - 100',
  'abs(clamp(temperature, 0, 50) - 25)',
  'histogram_quantile(0.9, label_replace(temperature, "le", "$1", "instance", "i(.*)"))',
  'label_join(temperature, "x", "-", "job", "instance")',
  'timestamp(temperature)',
  'absent(nope)',
];

/** valuesAgree compares two floats relatively, NaN equal to NaN. */
function valuesAgree(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

describe('range evaluation equals stepping instant evaluation', () => {
  for (const seed of [7, 11]) {
    const head = randomHead(seed);
    for (const expr of EXPRESSIONS) {
      it(`${expr} (seed ${seed})`, () => {
        const start = 600e3;
        const end = 3000e3;
        const step = 35e3;
        const r = range(head, expr, start, end, step);
        const byTime = new Map<number, Map<string, number>>();
        for (const s of r.series) {
          s.timestampsMs.forEach((t, i) => {
            let m = byTime.get(t);
            if (m === undefined) byTime.set(t, (m = new Map()));
            m.set(labelsKey(s.labels), s.values[i]);
          });
        }
        let points = 0;
        for (let t = start; t <= end; t += step) {
          const result = instant(head, expr, t).value;
          const expected = new Map<string, number>();
          if (result.type === 'scalar') expected.set(labelsKey({}), result.value);
          else if (result.type === 'vector') for (const s of result.samples) expected.set(labelsKey(s.labels), s.value);
          else throw new Error(`unexpected ${result.type}`);
          const actual = byTime.get(t) ?? new Map<string, number>();
          expect([...actual.keys()].sort(), `series at ${t}`).toEqual([...expected.keys()].sort());
          for (const [k, v] of expected) {
            expect(valuesAgree(actual.get(k)!, v), `${k} at ${t}: range ${actual.get(k)} vs instant ${v}`).toBe(true);
            points++;
          }
        }
        if (!expr.startsWith('absent')) expect(points).toBeGreaterThan(0);
      });
    }
  }
});
