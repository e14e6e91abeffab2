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
