import { suggestClosest } from '../suggest.js';

/**
 * "Did you mean" hints for findings, with a bounded cost. A hint compares the word with each
 * candidate by edit distance, which costs the product of their lengths; unbounded, a spec of
 * long, similar panel ids and cells naming ids that are not there took minutes to answer. The
 * hint only ever names a candidate at most two edits away, so candidates whose length differs
 * by more than two are skipped without changing the answer, words too long to be typed by hand
 * get no hint, and one hint stops comparing after a fixed amount of work.
 */

/** MAX_HINTED_LENGTH is the longest word that gets a hint: ids and names people type are short. */
const MAX_HINTED_LENGTH = 64;

/** HINT_BUDGET is the character pairs one hint may compare: about 3,000 candidates of 20 characters. */
const HINT_BUDGET = 1_200_000;

/** hintFor returns the candidate `word` most likely meant, or undefined; see suggestClosest. */
export function hintFor(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > MAX_HINTED_LENGTH) return undefined;
  const near: string[] = [];
  let cost = 0;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - word.length) > 2) continue;
    cost += (candidate.length + 1) * (word.length + 1);
    if (cost > HINT_BUDGET) break;
    near.push(candidate);
  }
  return suggestClosest(word, near);
}
