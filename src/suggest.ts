/**
 * suggestClosest finds the candidate a typo most likely meant ("tittle" -> "title"), so an
 * error can say what to write instead of only what is wrong. Only close matches count: at most
 * two edits, and fewer than half the word, so short unrelated words are not suggested.
 */
export function suggestClosest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  return bestDistance <= 2 && bestDistance * 2 < Math.max(word.length, 2) ? best : undefined;
}

/**
 * editDistance counts the insertions, deletions, substitutions and swaps of neighbouring
 * letters that turn `a` into `b` (optimal string alignment), so "jbo" is one edit from "job".
 * It keeps three rows rather than a matrix.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const width = b.length + 1;
  let before = new Uint32Array(width);
  let previous = new Uint32Array(width);
  let current = new Uint32Array(width);
  for (let j = 0; j < width; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j < width; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        best = Math.min(best, before[j - 2] + 1);
      }
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length];
}

/**
 * closestMatches ranks up to `count` candidates by how likely `wanted` meant them, ignoring
 * case: those containing it (or contained in it) first, then by edit distance up to six. It is
 * how an empty query result names the label value or metric that was probably meant, where a
 * partial name ("requests" for "http_requests_total") is as common as a typo.
 */
export function closestMatches(wanted: string, candidates: Iterable<string>, count = 3): string[] {
  const w = wanted.toLowerCase();
  const scored: Array<{ value: string; score: number }> = [];
  for (const value of candidates) {
    const v = value.toLowerCase();
    if (Math.abs(v.length - w.length) > 6 && !v.includes(w) && !w.includes(v)) continue;
    const score = v === w ? -1 : v.includes(w) || w.includes(v) ? 0 : editDistance(w, v);
    if (score <= 6) scored.push({ value, score });
  }
  scored.sort((a, b) => a.score - b.score || a.value.localeCompare(b.value));
  return scored.slice(0, count).map((s) => s.value);
}
