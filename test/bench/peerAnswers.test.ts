import { describe, expect, it } from 'vitest';
import { compareAnswers, unreadableAnswer } from '../../bench/peers/compareAnswers.js';
import { parseAnswer, sseData } from '../../bench/peers/queryClients.js';

/**
 * The peer benchmark reads Sluice's SSE answers event by event from their bytes (a whole-day
 * answer over 10,000 series is larger than any string V8 can make) and compares them with
 * Prometheus' JSON; these check that reading against answers written out by hand.
 */
function sse(events: unknown[]): Buffer {
  return Buffer.from(events.map((e) => `event: message\ndata: ${JSON.stringify(e)}\n\n`).join(''));
}

const PROMETHEUS = Buffer.from(
  JSON.stringify({
    status: 'success',
    data: {
      resultType: 'matrix',
      result: [
        { metric: { job: 'a', code: '200' }, values: [[10, '1.5'], [25, '2']] },
        { metric: { job: 'b' }, values: [[10, 'NaN'], [25, '3']] },
      ],
    },
  }),
);

describe('peer benchmark answers', () => {
  it('yields each event payload, with multi-byte text and no trailing separator', () => {
    const body = Buffer.concat([sse([{ type: 'result', data: { tags: { job: 'ä' } } }]), Buffer.from('data: {"type":"done"}')]);
    expect([...sseData(body)].map((d) => JSON.parse(d) as unknown)).toEqual([{ type: 'result', data: { tags: { job: 'ä' } } }, { type: 'done' }]);
  });

  it('reads the default and compact SSE formats as the same points as Prometheus JSON', () => {
    const spec = sse([
      { type: 'result', data: { tags: { code: '200', job: 'a' }, timestamp: 10_000, value: 1.5 } },
      { type: 'result', data: { tags: { job: 'a', code: '200' }, timestamp: 25_000, value: 2 } },
      { type: 'result', data: { tags: { job: 'b' }, timestamp: 25_000, value: 3 } },
      { type: 'done', data: { status: 'ok' } },
    ]);
    const compact = sse([
      { type: 'series', data: { id: 0, tags: { job: 'a', code: '200' } } },
      { type: 'series', data: { id: 1, tags: { job: 'b' } } },
      { type: 'points', data: { id: 0, timestamps: [10_000, 25_000], values: [1.5, 2] } },
      { type: 'points', data: { id: 1, timestamps: [25_000], values: [3] } },
      { type: 'done', data: { status: 'ok' } },
    ]);
    const reference = parseAnswer('prometheus', PROMETHEUS);
    expect(reference.get(JSON.stringify([['code', '200'], ['job', 'a']]))).toEqual(new Map([[10_000, 1.5], [25_000, 2]]));
    expect(compareAnswers(reference, parseAnswer('sluice', spec))).toEqual({ points: 3, mismatches: 0, examples: [] });
    expect(compareAnswers(reference, parseAnswer('sluice-compact', compact))).toEqual({ points: 3, mismatches: 0, examples: [] });
  });

  it('counts a different value, a missing point and an unreadable answer as mismatches', () => {
    const wrong = sse([{ type: 'result', data: { tags: { job: 'a', code: '200' }, timestamp: 10_000, value: 1.6 } }]);
    const agreement = compareAnswers(parseAnswer('prometheus', PROMETHEUS), parseAnswer('sluice', wrong));
    expect(agreement.mismatches).toBe(3);
    expect(agreement.examples[0]).toContain('1.6 instead of 1.5');
    expect(() => parseAnswer('sluice', Buffer.from('data: {not json\n\n'))).toThrow();
    expect(unreadableAnswer('bad').mismatches).toBe(1);
  });
});
