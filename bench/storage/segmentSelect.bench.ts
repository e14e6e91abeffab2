/**
 * Segment selection benchmark: the part of an instant query over many series that happens
 * before any evaluation, selecting the last five minutes of every matching series from a
 * cached segment (10,000 series of 100 scrape targets, 4 h at 15 s, all decoded).
 *
 * Compared in the same run:
 *   - series scraped by target (a target's series share one decoded timestamp column, so the
 *     window is found, and its view made, once per column) against the same number of series
 *     each with timestamps of its own (a window per series, as every series paid before
 *     columns were shared);
 *   - regex matchers as compiled for a scan (results remembered per label value) against the
 *     same regexes tested for every series.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/storage/segmentSelect.bench.js
 */
import { Bench } from 'tinybench';
import { compileRegex } from '../../engine/regex/index.js';
import { compileMatchers, matchesAll, type CompiledMatcher, type LabelMatcher } from '../../engine/storage/matchers.js';
import { MetricSegmentReader, encodeMetricSegment } from '../../engine/storage/metricSegment.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { runWhenDirect } from '../runDirect.js';
import { seededRandom } from '../seededRandom.js';
import { taskMedianMs } from '../taskResult.js';

const TARGETS = 100;
const ROUTES = 5;
const CODES = 20;
const SAMPLES = 4 * 240;
const SCRAPE_MS = 15_000;
const START_MS = Date.UTC(2024, 4, 1);
const WINDOW_MS = 5 * 60_000;

/**
 * targetSeries are TARGETS x ROUTES x CODES counters at jittered scrape times: a target's
 * series share its times, or with `ownTimes` every series has times of its own.
 */
function targetSeries(ownTimes: boolean): SeriesColumns[] {
  const random = seededRandom(7);
  const out: SeriesColumns[] = [];
  const scrapeTimes = (first: number): Float64Array => {
    let at = first;
    return Float64Array.from({ length: SAMPLES }, () => (at += SCRAPE_MS + Math.floor(random() * 5)));
  };
  for (let target = 0; target < TARGETS; target++) {
    const shared = scrapeTimes(START_MS + target * 37);
    for (let route = 0; route < ROUTES; route++) {
      for (let code = 0; code < CODES; code++) {
        const t = ownTimes ? scrapeTimes(START_MS + target * 37) : shared;
        let v = 0;
        const values = Float64Array.from(t, () => (v += random() * 3));
        const labels = { __name__: 'requests_total', code: String(200 + code), instance: `i-${String(target).padStart(4, '0')}`, route: `/r${route}` };
        out.push({ labels, timestampsMs: t, values });
      }
    }
  }
  return out;
}

/** everyTime compiles matchers without remembering regex results: each series tests each regex. */
function everyTime(matchers: readonly LabelMatcher[]): CompiledMatcher[] {
  return matchers.map((m) => {
    if (m.type === '=' || m.type === '!=') return compileMatchers([m])[0];
    const re = compileRegex(m.value, { anchored: true, dotNL: true });
    const test = m.type === '=~' ? (v: string): boolean => re.test(v) : (v: string): boolean => !re.test(v);
    return { name: m.name, test, matchesEmpty: test('') };
  });
}

export async function main(): Promise<void> {
  const series = targetSeries(false);
  const end = Math.max(...series.map((s) => s.timestampsMs[s.timestampsMs.length - 1]));
  const readers = {
    'shared times': MetricSegmentReader.decode(encodeMetricSegment(series)!.bytes),
    'own times': MetricSegmentReader.decode(encodeMetricSegment(targetSeries(true))!.bytes),
  };
  const byName: LabelMatcher[] = [{ name: '__name__', type: '=', value: 'requests_total' }];
  const byRegex: LabelMatcher[] = [...byName, { name: 'route', type: '=~', value: '/r[0-2]' }, { name: 'instance', type: '=~', value: 'i-00.[13579]' }];
  for (const reader of Object.values(readers)) reader.select(byName, compileMatchers(byName), -Infinity, Infinity);

  const bench = new Bench({ time: 600, warmup: true });
  for (const [format, reader] of Object.entries(readers)) {
    for (const [shape, matchers] of [['name', byName], ['name and two regexes', byRegex]] as const) {
      bench.add(`${format} | ${shape}`, () => void reader.select(matchers, compileMatchers(matchers), end - WINDOW_MS, end));
    }
  }
  const labelSets = series.map((s) => s.labels);
  bench.add('regexes remembered', () => {
    const compiled = compileMatchers(byRegex);
    for (const labels of labelSets) matchesAll(labels, compiled);
  });
  bench.add('regexes tested per series', () => {
    const compiled = everyTime(byRegex);
    for (const labels of labelSets) matchesAll(labels, compiled);
  });
  await bench.run();

  const ms = (name: string): number => taskMedianMs(bench, name);
  console.log(`select the last 5 minutes of ${series.length} series (median ms; ratio shared times / own times)`);
  for (const shape of ['name', 'name and two regexes']) {
    const [shared, own] = ['shared times', 'own times'].map((f) => ms(`${f} | ${shape}`));
    console.log(`  ${shape.padEnd(24)} shared ${shared.toFixed(3).padStart(7)}  own ${own.toFixed(3).padStart(7)}  ${(shared / own).toFixed(2)}x`);
  }
  const remembered = ms('regexes remembered');
  const tested = ms('regexes tested per series');
  console.log(`matching ${labelSets.length} label sets against a name and two regexes: remembered ${remembered.toFixed(3)} ms, tested per series ${tested.toFixed(3)} ms (${(remembered / tested).toFixed(2)}x)`);
}

runWhenDirect(import.meta.url, main);
