import { StringStream } from '@codemirror/language';
import { describe, expect, it } from 'vitest';
import { logqlToken } from '../../src/web/editor/logqlLanguage.js';

/**
 * The LogQL highlighter runs on every keystroke in the query editor, so it must never stall:
 * every token consumes at least one character (no endless loop on any input) and its patterns
 * are anchored and free of nested repetition (no backtracking blow-up on long lines).
 */

function tokens(line: string): Array<[string, string | null]> {
  const stream = new StringStream(line, 2, 2);
  const out: Array<[string, string | null]> = [];
  while (!stream.eol()) {
    const start = stream.pos;
    const style = logqlToken(stream);
    if (stream.pos <= start) throw new Error(`no progress at ${start} of ${JSON.stringify(line.slice(start, start + 20))}`);
    stream.start = stream.pos;
    out.push([line.slice(start, stream.pos), style]);
  }
  return out;
}

describe('LogQL highlighting', () => {
  it('colours a query by its parts', () => {
    const styled = tokens('sum by (level) (count_over_time({service_name="checkout"} |= "error" | logfmt [5m]))').filter(([, s]) => s !== null);
    expect(styled).toEqual(
      expect.arrayContaining([
        ['sum', 'keyword'],
        ['by', 'keyword'],
        ['count_over_time', 'keyword'],
        ['service_name', 'propertyName'],
        ['"checkout"', 'string'],
        ['|=', 'operator'],
        ['"error"', 'string'],
        ['logfmt', 'keyword'],
        ['[5m]', 'number'],
      ]),
    );
  });

  it('makes progress on every input, however long or unfinished', () => {
    const hostile = [
      '['.repeat(50_000),
      '[ '.repeat(20_000) + '5',
      '"' + '\\'.repeat(40_001),
      '`' + 'a'.repeat(50_000),
      '{a=~"'.repeat(10_000),
      '1'.repeat(30_000) + 'x',
      '|'.repeat(30_000) + '~',
      'a.'.repeat(25_000),
      '\u00e9\u{1F600}'.repeat(10_000),
      '#' + ' '.repeat(50_000),
    ];
    for (const line of hostile) {
      const got = tokens(line);
      expect(got.map(([t]) => t).join('')).toBe(line);
      expect(got.length).toBeLessThanOrEqual(line.length);
    }
  });
});
