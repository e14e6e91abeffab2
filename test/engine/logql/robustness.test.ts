import { expect, it } from 'vitest';
import { EngineError } from '../../../engine/errors.js';
import { checkLogQL, parseLogQL, printLogQL } from '../../../engine/logql/index.js';
import { describeWithShared } from '../../support/sharedBundle.js';
import { conformanceCases } from './conformanceCases.js';
import { withoutPositions } from './helpers.js';

/**
 * outcome runs the whole front end on `text`. It must either succeed (and then print
 * something that parses back to the same tree) or throw an EngineError whose position lies
 * inside the text; anything else is a bug.
 */
function outcome(text: string): 'ok' | 'error' {
  try {
    const expr = parseLogQL(text);
    checkLogQL(expr, text);
    expect(withoutPositions(parseLogQL(printLogQL(expr)))).toEqual(withoutPositions(expr));
    return 'ok';
  } catch (err) {
    if (!(err instanceof EngineError)) throw new Error(`${JSON.stringify(text)} threw ${String(err)}`);
    const position = err.position;
    expect(position, text).toBeDefined();
    expect(position!.start, text).toBeGreaterThanOrEqual(0);
    expect(position!.end, text).toBeLessThanOrEqual(text.length);
    return 'error';
  }
}

describeWithShared('conformance/logql', 'front end robustness', () => {
  const queries = [...new Set(conformanceCases().map((c) => c.query))];

  it('handles every prefix of the corpus queries', () => {
    let errors = 0;
    for (const query of queries) {
      for (let end = 0; end < query.length; end += 3) {
        if (outcome(query.slice(0, end)) === 'error') errors++;
      }
    }
    expect(errors).toBeGreaterThan(0);
  });

  it('handles corpus queries with one token-like piece removed or doubled', () => {
    const pieces = ['|', '(', ')', '"', '[', ']', ',', '{', '}', '=', 'by', 'or', '`'];
    for (const query of queries.slice(0, 300)) {
      for (const piece of pieces) {
        const at = query.indexOf(piece);
        if (at < 0) continue;
        outcome(query.slice(0, at) + query.slice(at + piece.length));
        outcome(query.slice(0, at) + piece + query.slice(at));
      }
    }
  });
});
