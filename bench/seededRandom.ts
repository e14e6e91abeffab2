/**
 * seededRandom returns a generator of numbers in [0, 1) from a linear congruential sequence:
 * benchmarks build the same data on every run, so their figures compare across builds.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
