import { compareAnswers, unreadableAnswer, type Agreement } from './compareAnswers.js';
import type { RunningSystem, SystemName } from './peers.js';
import type { QueryCase } from './queries.js';
import { parseAnswer, timedQuery, type TimedAnswer } from './queryClients.js';
import { median, percentile } from './stats.js';

/**
 * Runs every query case against every system, interleaved: one warm-up round, then
 * `repetitions` rounds, each round asking each case of each system once, with the order of
 * systems rotated from round to round so no system always runs right after another's load.
 * Quick cases (every system's every run below QUICK_CASE_MS) then get further rounds, until
 * `quickRepetitions` runs each: a median of five runs of a few milliseconds moved by a quarter
 * to a half between runs of the same build, which decided whether a row met its goal.
 * The warm-up answers are compared with Prometheus' (the reference implementation of PromQL)
 * as soon as the warm-up round ends, and then let go: a wrong answer shows in minutes, not
 * after every timed round, and a large scale's gigabyte answers are not held for the whole run.
 */
export interface SystemTimings {
  runsMs: number[];
  medianMs: number;
  p90Ms: number;
  bytes: number;
}

export interface QueryCaseResult {
  id: string;
  name: string;
  window: string;
  kind: 'range' | 'instant';
  expr: string;
  stepS: number;
  systems: Partial<Record<SystemName, SystemTimings>>;
  /** Median of Sluice (SSE) divided by median of the peer: below 1 means Sluice is faster. */
  ratios: Partial<Record<SystemName, number>>;
  /**
   * Sluice asked through its Prometheus-compatible API, as ratios of its median: to Sluice's
   * SSE answer (the cost of one wire format against the other) and to each peer.
   */
  prometheusApiRatios?: { sse: number; prometheus?: number; victoria?: number };
  /** Sluice asked for the compact SSE format, as ratios of its median: to the default SSE answer and to each peer. */
  compactRatios?: { sse: number; prometheus?: number; victoria?: number };
  /** Each system's answer against Prometheus'. Sluice must agree; VictoriaMetrics' differences are reported. */
  agreement: Partial<Record<SystemName, Agreement>>;
  /**
   * The first failure of each system that failed this case (an error status, a deadline, a
   * dropped stream). A failed system is not asked this case again and has no timings for it,
   * so one refused query costs one case, not the run.
   */
  failures: Partial<Record<SystemName, string>>;
}

/** QUICK_CASE_MS is the slowest run a case may have, on every system, to be asked again up to the quick repetitions. */
export const QUICK_CASE_MS = 100;

export async function runQuerySuite(systems: RunningSystem[], cases: QueryCase[], repetitions: number, log: (line: string) => void, quickRepetitions = repetitions): Promise<QueryCaseResult[]> {
  const runs = new Map<string, Map<SystemName, number[]>>();
  const bytes = new Map<string, Map<SystemName, number>>();
  const agreements = new Map<string, Partial<Record<SystemName, Agreement>>>();
  const failures = new Map<string, Map<SystemName, string>>();
  for (const c of cases) {
    failures.set(c.id, new Map());
    runs.set(c.id, new Map(systems.map((s) => [s.name, []])));
    bytes.set(c.id, new Map());
  }
  const quick = (c: QueryCase): boolean => systems.every((sys) => failures.get(c.id)!.has(sys.name) || runs.get(c.id)!.get(sys.name)!.every((ms) => ms < QUICK_CASE_MS));
  const lastRound = Math.max(repetitions, quickRepetitions);
  for (let round = 0; round <= lastRound; round++) {
    const t0 = performance.now();
    let asked = 0;
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      if (round > repetitions && !quick(c)) continue;
      asked++;
      const offset = (round + i) % systems.length;
      const order = [...systems.slice(offset), ...systems.slice(0, offset)];
      const warmBodies = new Map<SystemName, Uint8Array>();
      for (const sys of order) {
        if (failures.get(c.id)!.has(sys.name)) continue;
        let answer: TimedAnswer;
        try {
          answer = await timedQuery(sys, c.request);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          failures.get(c.id)!.set(sys.name, message.slice(0, 400));
          log(`query suite: ${sys.name} failed ${c.id}: ${message.slice(0, 200)}`);
          continue;
        }
        if (round === 0) {
          warmBodies.set(sys.name, answer.body);
          bytes.get(c.id)!.set(sys.name, answer.bytes);
        } else {
          runs.get(c.id)!.get(sys.name)!.push(answer.ms);
        }
      }
      if (round === 0) {
        agreements.set(c.id, compareWithPrometheus(warmBodies, c.id, log));
        // Comparing large answers holds the event loop for seconds, during which a server may
        // close an idle keep-alive connection; let that close be seen before the next request
        // would be sent on it (and fail as "fetch failed", a fault of this client, not the server's).
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    if (asked === 0) break;
    const name = round === 0 ? 'warm-up' : round <= repetitions ? `round ${round}/${repetitions}` : `quick round ${round}/${quickRepetitions} (${asked} cases)`;
    log(`query suite: ${name} took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return cases.map((c) => {
    const failed = failures.get(c.id)!;
    const result: QueryCaseResult = { id: c.id, name: c.definition.name, window: c.window, kind: c.request.kind, expr: c.request.expr, stepS: c.request.stepS, systems: {}, ratios: {}, agreement: {}, failures: Object.fromEntries(failed) };
    for (const sys of systems) {
      if (failed.has(sys.name)) continue;
      const r = runs.get(c.id)!.get(sys.name)!;
      result.systems[sys.name] = { runsMs: r.map((x) => Number(x.toFixed(3))), medianMs: median(r), p90Ms: percentile(r, 90), bytes: bytes.get(c.id)!.get(sys.name)! };
    }
    const sluice = result.systems.sluice;
    const peers = systems.filter((sys) => (sys.name === 'prometheus' || sys.name === 'victoria') && result.systems[sys.name] !== undefined);
    for (const sys of peers) {
      if (sluice !== undefined) result.ratios[sys.name] = sluice.medianMs / result.systems[sys.name]!.medianMs;
    }
    const viaPrometheusApi = result.systems['sluice-prom'];
    if (viaPrometheusApi !== undefined && sluice !== undefined) {
      result.prometheusApiRatios = { sse: viaPrometheusApi.medianMs / sluice.medianMs };
      for (const sys of peers) result.prometheusApiRatios[sys.name as 'prometheus' | 'victoria'] = viaPrometheusApi.medianMs / result.systems[sys.name]!.medianMs;
    }
    const compact = result.systems['sluice-compact'];
    if (compact !== undefined && sluice !== undefined) {
      result.compactRatios = { sse: compact.medianMs / sluice.medianMs };
      for (const sys of peers) result.compactRatios[sys.name as 'prometheus' | 'victoria'] = compact.medianMs / result.systems[sys.name]!.medianMs;
    }
    result.agreement = agreements.get(c.id) ?? {};
    return result;
  });
}

/**
 * compareWithPrometheus checks every system's warm-up answer against Prometheus'. An answer that
 * cannot be read is recorded as a disagreement of that system rather than ending the run.
 */
function compareWithPrometheus(bodies: Map<SystemName, Uint8Array>, caseId: string, log: (line: string) => void): Partial<Record<SystemName, Agreement>> {
  const agreement: Partial<Record<SystemName, Agreement>> = {};
  const reference = bodies.get('prometheus');
  if (reference === undefined) return agreement;
  const refPoints = parseAnswer('prometheus', reference);
  for (const [name, body] of bodies) {
    if (name === 'prometheus') continue;
    try {
      agreement[name] = compareAnswers(refPoints, parseAnswer(name, body));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log(`query suite: could not compare ${name}'s answer to ${caseId}: ${message.slice(0, 200)}`);
      agreement[name] = unreadableAnswer(message);
    }
  }
  return agreement;
}
