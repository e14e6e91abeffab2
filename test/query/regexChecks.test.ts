import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { query, readSse, type SseResponse } from '../support/sse.js';

/**
 * Regexes in queries are checked once, by the engine that runs them: what validation accepts
 * runs without an internal error, what it rejects the query routes reject with the same
 * positioned 400, and a bounded repeat costs milliseconds, not seconds.
 */

const END_MS = Math.floor(Date.now() / 60_000) * 60_000;
const START_MS = END_MS - 10 * 60_000;
const NS = 1_000_000n;
/** A pattern whose expansion is past the program-size budget (101 × 1000 instructions). */
const TOO_LARGE = '\\\\pL{1000}'.repeat(101);

interface ValidateAnswer {
  valid: boolean;
  error?: { code: string; message: string; position: { start: number; end: number } };
}

describe('regexes in queries are checked by the engine that runs them', () => {
  let srv: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    srv = await startTestServer({ SVC_QUERY_WORKERS: '1' });
    const values: Array<[string, string]> = [];
    for (let i = 0; i < 40; i++) {
      const line = `level=info msg="${'a'.repeat(i % 4)}b request ${i}"`;
      lines.push(line);
      values.push([String(BigInt(START_MS + i * 10_000) * NS), line]);
    }
    const res = await fetch(`${srv.url}/loki/api/v1/push`, {
      method: 'POST',
      body: JSON.stringify({ streams: [{ stream: { a: 'b' }, values }] }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(204);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const validate = async (language: 'logql' | 'promql', q: string): Promise<ValidateAnswer> => {
    const res = await fetch(`${srv.url}/api/v1/${language}/validate`, {
      method: 'POST',
      body: JSON.stringify({ q }),
      headers: { 'x-svc-api-key': srv.key, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as ValidateAnswer;
  };
  const run = async (path: string, q: string): Promise<SseResponse> =>
    readSse(await query(srv.url, path, srv.key, { q, s: String(START_MS), e: String(END_MS), limit: 100 }));
  const messages = (r: SseResponse): string[] =>
    r.events.filter((e) => e.type === 'result').map((e) => (e.data.tags as Record<string, string>).message);

  /** expectRejectedAlike checks validate and query agree on a positioned INVALID_EXPR. */
  const expectRejectedAlike = async (language: 'logql' | 'promql', path: string, q: string, message: RegExp, at: { start: number; end: number }) => {
    const checked = await validate(language, q);
    expect(checked.valid, q).toBe(false);
    expect(checked.error?.code).toBe('INVALID_EXPR');
    expect(checked.error?.message).toMatch(message);
    const pos = checked.error!.position;
    expect(pos.start, `${q} error starts inside the string`).toBeGreaterThanOrEqual(at.start);
    expect(pos.start).toBeLessThan(at.end);
    const ran = await run(path, q);
    expect(ran.status, q).toBe(400);
    expect(ran.body).toMatchObject({ status: 400, code: 'INVALID_EXPR', position: { start: pos.start, end: pos.end } });
    expect(ran.body?.message).toBe(checked.error?.message);
  };
  const stringAt = (q: string, literal: string) => {
    const start = q.indexOf(literal);
    return { start, end: start + literal.length };
  };

  it('rejects (a{2}){1000} in a line filter at the repeat, in validate and query alike', async () => {
    // It used to validate and then fail with 500 in the worker.
    const q = '{a="b"} |~ "(a{2}){1000}"';
    await expectRejectedAlike('logql', '/api/v1/logs/query', q, /invalid repeat count: `\{1000\}`/, { start: q.indexOf('{1000}'), end: q.indexOf('{1000}') + 1 });
  });

  it('agrees on \\Q\\E* between validate and query', async () => {
    const q = '{a="b"} |~ `\\Q\\E*`';
    await expectRejectedAlike('logql', '/api/v1/logs/query', q, /missing argument to repetition operator/, stringAt(q, '`\\Q\\E*`'));
  });

  it('rejects a pattern past the program-size budget at the string, in every place LogQL takes a regex', async () => {
    for (const q of [
      `{a="b"} |~ "${TOO_LARGE}"`,
      `{a=~"${TOO_LARGE}"}`,
      `{a="b"} | logfmt | msg=~"${TOO_LARGE}"`,
      `{a="b"} | regexp "(?P<x>${TOO_LARGE})"`,
      `label_replace(count_over_time({a="b"}[1m]), "x", "$1", "a", "${TOO_LARGE}")`,
    ]) {
      const literal = q.slice(q.lastIndexOf('"', q.indexOf(TOO_LARGE)), q.indexOf('"', q.indexOf(TOO_LARGE)) + 1);
      await expectRejectedAlike('logql', '/api/v1/logs/query', q, /expression too large/, stringAt(q, literal));
    }
  });

  it('rejects the same patterns in PromQL label matchers, in validate and query alike', async () => {
    for (const pattern of ['(a{2}){1000}', TOO_LARGE]) {
      const q = `up{job=~"${pattern}"}`;
      await expectRejectedAlike('promql', '/api/v1/metrics/query', q, /error parsing regexp/, { start: 0, end: q.length });
    }
  });

  it('runs a{2,1000} over pushed lines quickly and exactly', async () => {
    // This took about 4 s per query. A first query warms the worker up, which is not the
    // regex's cost.
    expect((await run('/api/v1/logs/query', '{a="b"} |= "request"')).status).toBe(200);
    const started = performance.now();
    const res = await run('/api/v1/logs/query', '{a="b"} |~ "a{2,1000}"');
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(messages(res).sort()).toEqual(lines.filter((l) => /a{2,1000}/.test(l)).sort());
    expect(elapsed).toBeLessThan(2_000);
    const checked = await validate('logql', '{a="b"} |~ "a{2,1000}"');
    expect(checked.valid).toBe(true);
  });
});
