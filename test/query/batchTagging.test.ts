import { describe, expect, it } from 'vitest';
import { tagEvents } from '../../src/query/batchMember.js';
import { frame } from '../../src/http/sse.js';

describe('tagEvents', () => {
  it("adds the query's id to every event of a write and counts them", () => {
    const events = [
      { type: 'result', data: { tags: { msg: 'data: {"x":1}\n\ndata: {' }, value: 1 } },
      { type: 'points', data: { id: 0, timestamps: [1, 2], values: [3, 4] } },
      { type: 'done', data: { status: 'ok' } },
    ];
    const framed = events.map((e) => frame(e)).join('');
    const tagged = tagEvents(framed, JSON.stringify('panel:a'));
    expect(tagged.count).toBe(3);
    const parsed = tagged.text
      .split('\n\n')
      .filter((block) => block !== '')
      .map((block) => JSON.parse(block.slice('data: '.length)) as Record<string, unknown>);
    // Text that looks like framing inside a value is escaped JSON, never taken for an event.
    expect(parsed).toEqual(events.map((e) => ({ id: 'panel:a', ...e })));
    expect(tagged.text.endsWith('\n\n')).toBe(true);
  });

  it('leaves text that is not framed events out', () => {
    expect(tagEvents('', '"a"')).toEqual({ text: '', count: 0 });
    expect(tagEvents('{"status":400}', '"a"')).toEqual({ text: '', count: 0 });
  });
});
