/**
 * "Did you mean" hints, with a bounded cost. Comparing a word with a candidate by edit distance
 * costs the product of their lengths, and the words come from requests (a panel id, a label
 * value) while the candidates can be every label value an org has: unbounded, a spec of long,
 * similar panel ids took minutes to lint. So words too long to be typed by hand get no hint,
 * candidates whose length alone rules them out are skipped without changing the answer, and one
 * hint stops comparing after a fixed amount of work.
 */

/** MAX_HINTED_LENGTH is the longest word that gets a hint: names and ids people type are short. */
const MAX_HINTED_LENGTH = 256;

/** HINT_BUDGET is the character pairs one hint may compare: about 3,000 candidates of 20 characters. */
const HINT_BUDGET = 1_200_000;

/**
 * suggestClosest finds the candidate a typo most likely meant ("tittle" -> "title"), so an
 * error can say what to write instead of only what is wrong. Only close matches count: at most
 * two edits, and fewer than half the word, so short unrelated words are not suggested.
 */
export function suggestClosest(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > MAX_HINTED_LENGTH) return undefined;
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  let cost = 0;
  for (const candidate of candidates) {
    // Two edits change the length by at most two.
    if (Math.abs(candidate.length - word.length) > 2) continue;
    cost += (candidate.length + 1) * (word.length + 1);
    if (cost > HINT_BUDGET) break;
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
 * partial name ("requests" for "http_requests_total") is as common as a typo. Past the hint
 * budget the remaining candidates are left out, so a huge listing gives a partial ranking fast.
 */
export function closestMatches(wanted: string, candidates: Iterable<string>, count = 3): string[] {
  if (wanted.length > MAX_HINTED_LENGTH) return [];
  const w = wanted.toLowerCase();
  const scored: Array<{ value: string; score: number }> = [];
  let cost = 0;
  for (const value of candidates) {
    const v = value.toLowerCase();
    const contains = v.includes(w) || w.includes(v);
    if (Math.abs(v.length - w.length) > 6 && !contains) continue;
    let score = v === w ? -1 : 0;
    if (!contains) {
      // Containment checks are linear; only edit distances count against the budget.
      cost += (v.length + 1) * (w.length + 1);
      if (cost > HINT_BUDGET) break;
      score = editDistance(w, v);
    }
    if (score <= 6) scored.push({ value, score });
  }
  scored.sort((a, b) => a.score - b.score || a.value.localeCompare(b.value));
  return scored.slice(0, count).map((s) => s.value);
}
