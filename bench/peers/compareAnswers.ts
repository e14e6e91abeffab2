import type { SeriesPoints } from './queryClients.js';

/**
 * Compares two answers point by point, to a relative tolerance: the benchmark only counts a
 * speed-up if the answer is the same. Missing and extra points count as mismatches too.
 */
export const RELATIVE_TOLERANCE = 1e-6;

export interface Agreement {
  /** Points in either answer. */
  points: number;
  mismatches: number;
  /** Up to three examples, for the report. */
  examples: string[];
}

export function sameValue(a: number, b: number): boolean {
  if (a === b) return true;
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return Math.abs(a - b) <= RELATIVE_TOLERANCE * scale || scale < 1e-12;
}

export function compareAnswers(reference: SeriesPoints, candidate: SeriesPoints): Agreement {
  const result: Agreement = { points: 0, mismatches: 0, examples: [] };
  const note = (text: string): void => {
    result.mismatches++;
    if (result.examples.length < 3) result.examples.push(text);
  };
  for (const [key, refSeries] of reference) {
    const candSeries = candidate.get(key);
    for (const [ts, value] of refSeries) {
      result.points++;
      const other = candSeries?.get(ts);
      if (other === undefined) note(`${key} @${ts}: missing (expected ${value})`);
      else if (!sameValue(value, other)) note(`${key} @${ts}: ${other} instead of ${value}`);
    }
  }
  for (const [key, candSeries] of candidate) {
    const refSeries = reference.get(key);
    for (const [ts, value] of candSeries) {
      if (refSeries?.has(ts)) continue;
      result.points++;
      note(`${key} @${ts}: unexpected ${value}`);
    }
  }
  return result;
}

/** unreadableAnswer is the agreement of an answer that could not be parsed: one mismatch, saying why. */
export function unreadableAnswer(reason: string): Agreement {
  return { points: 0, mismatches: 1, examples: [`answer could not be read: ${reason.slice(0, 200)}`] };
}
