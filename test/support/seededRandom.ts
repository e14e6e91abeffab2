import { mulberry32 } from '../../src/gen/model.js';

/**
 * SeededRandom is a small deterministic generator (mulberry32) for property and fuzz tests: a
 * failing case is reproduced from its seed, which the tests print in their assertion messages.
 */
export class SeededRandom {
  private readonly draw: () => number;

  constructor(readonly seed: number) {
    this.draw = mulberry32(seed);
  }

  /** next returns a number in [0, 1). */
  next(): number {
    return this.draw();
  }

  /** int returns a whole number from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** text returns a string of `length` characters drawn from `alphabet`. */
  text(length: number, alphabet: string): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}
