import type fc from 'fast-check';

/**
 * fuzzParameters is how long a fuzz suite runs and from which seed. CI runs the short mode;
 * `FUZZ_RUNS=5000 npx vitest run test/fuzz` runs longer, and `FUZZ_SEED` replays a failure
 * (fast-check prints the seed and path of every counterexample). The default seed is fixed per
 * suite so that a plain `npm test` is reproducible.
 */
export function fuzzParameters(suite: string): fc.Parameters<unknown> {
  const runs = Number(process.env.FUZZ_RUNS ?? 150);
  const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : defaultSeed(suite);
  const path = process.env.FUZZ_PATH;
  return { numRuns: runs, seed, ...(path !== undefined ? { path } : {}), verbose: 1 };
}

function defaultSeed(suite: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < suite.length; i++) h = Math.imul(h ^ suite.charCodeAt(i), 0x01000193) >>> 0;
  return h | 0;
}
