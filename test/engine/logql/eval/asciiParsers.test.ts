import { describe, expect, it } from 'vitest';
import { JsonParser } from '../../../../engine/logql/eval/pipeline/jsonParser.js';
import { LogfmtParser } from '../../../../engine/logql/eval/pipeline/logfmtParser.js';
import { LabelCache, LabelsBuilder } from '../../../../engine/logql/eval/index.js';
import { ASCII_KEPT, ASCII_NEEDS_TEXT, UNREAD_TIMESTAMP, type AsciiParser } from '../../../../engine/logql/eval/pipeline/stage.js';
import { SeededRandom } from '../../../support/seededRandom.js';
import { jsonLine as line, logfmtLine } from '../../../support/generatedLogLines.js';

/**
 * `| json` and `| logfmt` read lines stored as ASCII bytes without making their strings (processAscii) when
 * the query says which labels it reads. Whatever it reads there must come out as the text
 * reader (process) reads it, and whatever it hands back must leave the labels untouched, on
 * lines of every shape: escapes, nested objects and arrays, literals, odd keys, keys naming a
 * stream label, repeated keys, whitespace, malformed documents.
 */

const WANTED = ['route', 'status', 'level', 'msg', 'app_extracted', 'route_extracted', 'user_id', '_ts', '_1st', 'a_b', 'nope'];

function wantedSet(random: SeededRandom): Set<string> {
  const names = new Set<string>();
  const count = random.int(1, 4);
  while (names.size < count) names.add(random.pick(WANTED));
  return names;
}

/** Counts of compareWithText: lines read from bytes, lines handed back to the text reader. */
interface Compared {
  read: number;
  handedBack: number;
}

/**
 * compareWithText reads 300 lines of each of 60 seeds from bytes (a window of a larger buffer,
 * as a stored block holds them) and from text with two parsers `make` builds, under a random
 * stream and wanted labels, and checks that a line read from bytes has the text reader's
 * labels and that a line handed back changed nothing.
 */
function compareWithText(firstSeed: number, make: (random: SeededRandom) => { parser: () => AsciiParser; context: string }, lineOf: (random: SeededRandom) => string): Compared {
  const counts = { read: 0, handedBack: 0 };
  for (let seed = firstSeed; seed < firstSeed + 60; seed++) {
    const random = new SeededRandom(seed);
    const base: Record<string, string> = random.chance(0.5) ? { app: 'x' } : { app: 'x', route: 'stream-route' };
    const wanted = wantedSet(random);
    const { parser, context: made } = make(random);
    const cache = new LabelCache();
    const fromBytes = new LabelsBuilder(base, cache, false, random.chance(0.3), wanted);
    const fromText = new LabelsBuilder(base, cache, false, false, wanted);
    const bytesParser = parser();
    const textParser = parser();
    for (let n = 0; n < 300; n++) {
      const text = lineOf(random);
      const stored = Buffer.from(`..${text}..`, 'latin1');
      fromBytes.reset();
      const outcome = bytesParser.processAscii(stored, 2, stored.length - 2, fromBytes);
      const context = `seed ${seed} ${made} wanted ${[...wanted].join(',')} base ${JSON.stringify(base)} line ${JSON.stringify(text)}`;
      if (outcome === ASCII_NEEDS_TEXT) {
        counts.handedBack++;
        expect(fromBytes.unchanged(), context).toBe(true);
        continue;
      }
      expect(outcome, context).toBe(ASCII_KEPT);
      counts.read++;
      fromText.reset();
      expect(textParser.process(UNREAD_TIMESTAMP, text, fromText), context).toBe(text);
      expect(fromBytes.entries(), context).toEqual(fromText.entries());
      expect(fromBytes.hasError(), context).toBe(false);
    }
  }
  return counts;
}

describe('| json over lines stored as ASCII bytes', () => {
  it('sets exactly the labels the text reader sets, or hands the line back untouched', () => {
    const { read, handedBack } = compareWithText(1, () => ({ parser: () => new JsonParser(), context: '' }), line);
    // Both ways are met often enough for the comparison to mean something.
    expect(read).toBeGreaterThan(4000);
    expect(handedBack).toBeGreaterThan(2000);
  });

  it('reads the lines a service writes without handing them back', () => {
    const wanted = new Set(['route', 'status']);
    const labels = new LabelsBuilder({ app: 'x' }, new LabelCache(), false, false, wanted);
    const parser = new JsonParser();
    const lines = [
      '{"level":"info","route":"/r2","status":200,"latency_ms":198,"msg":"retrying payment"}',
      '{ "ts": "2026-12-01T00:00:00Z", "@version": 1, "route": "/r0", "status": 503 }',
      '{"status":"404","level":"warn","nested":null,"route":"/r1","extra":{"a":[1,2]}}',
      '{"route":"/r3"}',
    ];
    const got = lines.map((text) => {
      labels.reset();
      const ok = parser.processAscii(Buffer.from(text, 'latin1'), 0, text.length, labels) === ASCII_KEPT;
      return { ok, route: labels.get('route'), status: labels.get('status') };
    });
    expect(got).toEqual([
      { ok: true, route: '/r2', status: '200' },
      { ok: true, route: '/r0', status: '503' },
      { ok: true, route: '/r1', status: '404' },
      { ok: true, route: '/r3', status: undefined },
    ]);
  });

  it('leaves every label alone when no label is read', () => {
    const labels = new LabelsBuilder({ app: 'x' }, new LabelCache(), true);
    labels.reset();
    expect(new JsonParser().processAscii(Buffer.from('{"a":1}'), 0, 7, labels)).toBe(ASCII_KEPT);
    expect(labels.unchanged()).toBe(true);
  });
});

describe('| logfmt over lines stored as ASCII bytes', () => {
  it('sets exactly the labels the text reader sets, or hands the line back untouched', () => {
    const { read, handedBack } = compareWithText(
      1001,
      (random) => {
        const strict = random.chance(0.3);
        const keepEmpty = random.chance(0.3);
        return { parser: () => new LogfmtParser(strict, keepEmpty), context: `strict ${strict} keepEmpty ${keepEmpty}` };
      },
      logfmtLine,
    );
    expect(read).toBeGreaterThan(4000);
    expect(handedBack).toBeGreaterThan(1000);
  });
});
