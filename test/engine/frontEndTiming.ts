import { expect } from 'vitest';
import { EngineError } from '../../engine/errors.js';

/** FrontEndOutcome is how one language's front end (parse, check, print) met one input, and how long it took. */
export interface FrontEndOutcome {
  outcome: 'ok' | 'error';
  ms: number;
  error?: EngineError;
}

/**
 * timeFrontEnd runs a language's front end over `text`. Only the engine's positioned errors
 * count as refusals: anything else thrown (a stack overflow, a TypeError) fails the test.
 */
export function timeFrontEnd(text: string, run: (text: string) => void): FrontEndOutcome {
  const t0 = performance.now();
  try {
    run(text);
    return { outcome: 'ok', ms: performance.now() - t0 };
  } catch (err) {
    if (!(err instanceof EngineError)) throw new Error(`${text.slice(0, 60)}… threw ${String(err)}`);
    return { outcome: 'error', ms: performance.now() - t0, error: err };
  }
}

/** expectPositioned checks that a refusal points into the text. */
export function expectPositioned(err: EngineError | undefined, text: string): void {
  expect(err?.position).toBeDefined();
  expect(err!.position!.start).toBeGreaterThanOrEqual(0);
  expect(err!.position!.end).toBeLessThanOrEqual(text.length);
}
