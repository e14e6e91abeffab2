import { describe, expect, it } from 'vitest';
import { LogQuery, evaluateLogQuery, iterateLogQuery } from '../../../../engine/logql/eval/index.js';
import type { LogQueryOptions } from '../../../../engine/logql/eval/index.js';
import { LogHead } from '../../../../engine/storage/logHead.js';
import { parseChecked } from './helpers.js';

const T0 = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z in ns
const SEC = 1_000_000_000n;

function head(): LogHead {
  const h = new LogHead(new Set(['app']));
  h.append([
    { timestampNs: T0 + 1n * SEC, message: 'level=info msg="started" n=1', level: 'info', tags: { app: 'api', host: 'h1' } },
    { timestampNs: T0 + 2n * SEC, message: 'level=error msg="failed" n=2', level: 'error', tags: { app: 'api', host: 'h1' } },
    { timestampNs: T0 + 2n * SEC, message: 'level=warn msg="slow" n=3', level: 'warn', tags: { app: 'api', host: 'h2' } },
    { timestampNs: T0 + 3n * SEC, message: '{"msg":"json line","n":4}', level: 'info', tags: { app: 'api', host: 'h2' } },
    { timestampNs: T0 + 4n * SEC, message: 'level=info msg="done" n=5', level: 'info', tags: { app: 'web', host: 'h3' } },
  ]);
  return h;
}

function run(query: string, options: Partial<LogQueryOptions> = {}): Array<{ t: number; line: string; tags: Record<string, string> }> {
  const rows = evaluateLogQuery(parseChecked(query), head(), { startNs: T0, endNs: T0 + 10n * SEC, ...options });
  return rows.map((r) => ({ t: Number((r.timestampNs - T0) / SEC), line: r.line, tags: { ...r.tags } }));
}

describe('raw log queries', () => {
  it('returns matching lines oldest first with their tags, message and level', () => {
    const rows = run('{app="api"} |= "level="');
    expect(rows.map((r) => r.t)).toEqual([1, 2, 2]);
    expect(rows[0]).toEqual({
      t: 1,
      line: 'level=info msg="started" n=1',
      tags: { app: 'api', host: 'h1', level: 'info', message: 'level=info msg="started" n=1' },
    });
  });

  it('orders equal timestamps by stream and reverses everything backward', () => {
    expect(run('{app=~"api|web"}').map((r) => r.tags.host)).toEqual(['h1', 'h1', 'h2', 'h2', 'h3']);
    expect(run('{app=~"api|web"}', { direction: 'backward' }).map((r) => `${r.t}${r.tags.host}`)).toEqual(['4h3', '3h2', '2h2', '2h1', '1h1']);
  });

  it('honours the limit in either direction', () => {
    expect(run('{app=~"api|web"}', { limit: 2 }).map((r) => r.t)).toEqual([1, 2]);
    expect(run('{app=~"api|web"}', { limit: 2, direction: 'backward' }).map((r) => r.t)).toEqual([4, 3]);
    expect(run('{app=~"api|web"}', { limit: 0 })).toHaveLength(5);
  });

  it('bounds the time range inclusively', () => {
    expect(run('{app=~"api|web"}', { startNs: T0 + 2n * SEC, endNs: T0 + 3n * SEC }).map((r) => r.t)).toEqual([2, 2, 3]);
  });

  it('adds labels extracted by the pipeline and rewrites the line', () => {
    const rows = run('{app="api"} | logfmt | level="error" | line_format "{{.msg}} ({{.n}})"');
    expect(rows).toEqual([
      {
        t: 2,
        line: 'failed (2)',
        tags: { app: 'api', host: 'h1', level: 'error', level_extracted: 'error', message: 'failed (2)', msg: 'failed', n: '2' },
      },
    ]);
  });

  it('returns lines a parser failed on with their error labels', () => {
    const rows = run('{app="api"} | json');
    expect(rows.map((r) => r.tags.__error__)).toEqual(['JSONParserErr', 'JSONParserErr', 'JSONParserErr', undefined]);
    expect(rows[3].tags).toMatchObject({ msg: 'json line', n: '4' });
  });

  it('renames a parsed message label so the line keeps the tag', () => {
    expect(run('{app="api"} | json message="msg"')[3].tags).toMatchObject({ message: '{"msg":"json line","n":4}', message_extracted: 'json line' });
  });

  it('restricts tags to the fields allow-list', () => {
    const rows = run('{app="api"} | logfmt', { fields: ['msg', 'host'], limit: 1 });
    expect(rows).toEqual([{ t: 1, line: 'level=info msg="started" n=1', tags: { host: 'h1', msg: 'started' } }]);
  });

  it('walks time slices in order and stops at the limit', () => {
    const expr = parseChecked('{app=~"api|web"}');
    const slices = [...iterateLogQuery(expr, head(), { startNs: T0, endNs: T0 + 10n * SEC, sliceNs: 2n * SEC, limit: 4 })];
    expect(slices.map((rows) => rows.map((r) => Number((r.timestampNs - T0) / SEC)))).toEqual([[1], [2, 2, 3]]);
    const backward = [...iterateLogQuery(expr, head(), { startNs: T0, endNs: T0 + 10n * SEC, sliceNs: 3n * SEC, direction: 'backward' })];
    expect(backward.map((rows) => rows.map((r) => Number((r.timestampNs - T0) / SEC)))).toEqual([[4, 3, 2, 2], [1]]);
  });

  it('runs one slice at a time with a prepared query', () => {
    const query = new LogQuery(parseChecked('{app="api"} | logfmt | n > 1') as never, { direction: 'forward' });
    const h = head();
    expect(query.slice(h, T0, T0 + 2n * SEC).map((r) => r.tags.n)).toEqual(['2', '3']);
    expect(query.slice(h, T0 + 3n * SEC, T0 + 10n * SEC)).toEqual([]);
  });

  it('handles 1 MB lines and undecodable bytes', () => {
    const h = new LogHead(new Set(['app']));
    const big = `level=info payload=${'z'.repeat(1 << 20)}`;
    const broken = new TextDecoder().decode(new Uint8Array([0x6b, 0x3d, 0xc3, 0x28, 0x76]));
    h.append([
      { timestampNs: T0, message: big, level: '', tags: { app: 'x' } },
      { timestampNs: T0 + 1n, message: broken, level: '', tags: { app: 'x' } },
    ]);
    const rows = evaluateLogQuery(parseChecked('{app="x"} | logfmt'), h, { startNs: T0, endNs: T0 + SEC });
    expect(rows[0].tags.payload).toHaveLength(1 << 20);
    expect(rows[1].line).toBe('k=\ufffd(v');
    expect(rows[1].tags.k).toBe(' (v');
  });

  it('aborts when the signal fires', () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    expect(() => run('{app="api"}', { signal: controller.signal })).toThrow('stop');
  });

  it('refuses metric queries', () => {
    expect(() => evaluateLogQuery(parseChecked('count_over_time({app="api"}[1m])'), head(), { startNs: T0, endNs: T0 + SEC })).toThrow(
      'metric queries are not log queries',
    );
  });
});
