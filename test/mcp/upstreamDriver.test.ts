import { Writable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError, type CallContext } from '../../src/mcp/driver.js';
import { UPSTREAM_KINDS, upstreamDriver } from '../../src/mcp/drivers/upstream.js';
import type { IntegrationRecord } from '../../src/meta/types.js';
import { UPSTREAM_ISSUES, UPSTREAM_TOOLS, freeLoopbackUrl, startUpstreamMcp, type UpstreamMcp } from '../support/upstreamMcp.js';

const ORG = '6f1c2a4e-9b1d-4c7e-8a55-0d3f2b7c9e10';
const ISSUES = UPSTREAM_KINDS.find((k) => k.name === 'issues')!;

/** A log sink that keeps everything the driver logs, so tests can check no secret is in it. */
class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

function record(url: string | undefined, headers: Record<string, string> | undefined): IntegrationRecord {
  return { orgId: ORG, driver: 'issues', enabled: true, url, headers, updatedAt: '2026-01-01T00:00:00.000Z' };
}

function context(integration: IntegrationRecord | undefined, signal: AbortSignal = new AbortController().signal, sink?: Capture): CallContext {
  return {
    orgId: ORG,
    integration,
    headers: {},
    signal,
    log: sink ? pino({ level: 'debug' }, sink) : pino({ level: 'silent' }),
  };
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** until polls a condition for up to a second. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

/** listError runs listTools expecting it to fail, and returns the ToolError it threw. */
async function listError(promise: Promise<unknown>): Promise<ToolError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return err as ToolError;
}

describe('upstream forwarding drivers', () => {
  let upstream: UpstreamMcp;
  let paged: UpstreamMcp;

  beforeAll(async () => {
    upstream = await startUpstreamMcp();
    paged = await startUpstreamMcp({ pageSize: 2, extraTools: 5 });
  });
  afterAll(async () => {
    await upstream.close();
    await paged.close();
  });

  it('offers the six forwarding kinds, off until a URL is stored', () => {
    expect(UPSTREAM_KINDS.map((k) => k.name)).toEqual(['code', 'issues', 'chat', 'incidents', 'warehouse', 'collector']);
    for (const kind of UPSTREAM_KINDS) expect(kind.description.length).toBeGreaterThan(10);
    const driver = upstreamDriver(ISSUES);
    expect(driver.name).toBe('issues');
    expect(driver.description).toBe(ISSUES.description);
    expect(driver.enabledByDefault).toBe(false);
    expect(driver.configured(record(undefined, undefined))).toBe(false);
    expect(driver.configured(record('', undefined))).toBe(false);
    expect(driver.configured(record(upstream.url, { authorization: 'Bearer secret' }))).toBe(true);
  });

  it('lists the upstream tools unchanged, with the stored credential injected', async () => {
    const before = upstream.authorizations.length;
    const tools = await upstreamDriver(ISSUES).listTools(context(record(upstream.url, { authorization: 'Bearer secret' })));
    expect(tools).toEqual(UPSTREAM_TOOLS);
    const seen = upstream.authorizations.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['Bearer secret']));
  });

  it('follows nextCursor through every page', async () => {
    const pagesBefore = paged.listPages;
    const tools = await upstreamDriver(ISSUES).listTools(context(record(paged.url, { authorization: 'Bearer secret' })));
    expect(tools.map((t) => t.name)).toEqual([...UPSTREAM_TOOLS.map((t) => t.name), 'extra_0', 'extra_1', 'extra_2', 'extra_3', 'extra_4']);
    expect(paged.listPages - pagesBefore).toBe(Math.ceil((UPSTREAM_TOOLS.length + 5) / 2));
  });

  it('stops paginating at a bound', async () => {
    const endless = await startUpstreamMcp({ pageSize: 1, extraTools: 40 });
    try {
      const tools = await upstreamDriver(ISSUES).listTools(context(record(endless.url, { authorization: 'Bearer secret' })));
      expect(tools).toHaveLength(20);
      expect(endless.listPages).toBe(20);
    } finally {
      await endless.close();
    }
  });

  it('forwards calls and returns the upstream result as is', async () => {
    const driver = upstreamDriver(ISSUES);
    const ctx = context(record(upstream.url, { authorization: 'Bearer secret' }));
    const echoed = await driver.callTool('echo', { text: 'hello upstream' }, ctx);
    expect(echoed).toEqual({ content: [{ type: 'text', text: 'hello upstream' }], structuredContent: { text: 'hello upstream' } });

    const found = await driver.callTool('search_issues', { query: 'timeout', limit: 5 }, ctx);
    const issues = UPSTREAM_ISSUES.filter((i) => i.title.includes('timeout'));
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toEqual({ issues });
    expect(JSON.parse(text(found))).toEqual(issues);
    expect(upstream.calls.at(-1)).toEqual({ name: 'search_issues', arguments: { query: 'timeout', limit: 5 } });
  });

  it('passes an upstream refusal on as a tool error naming the integration', async () => {
    const result = await upstreamDriver(ISSUES).callTool('no_such_tool', {}, context(record(upstream.url, { authorization: 'Bearer secret' })));
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('integration "issues"');
    expect(text(result)).toContain('Tool no_such_tool not found');
  });

  it('reports a missing credential as the integration refusing it', async () => {
    const rejectedBefore = upstream.rejected;
    const driver = upstreamDriver(ISSUES);
    const ctx = context(record(upstream.url, {}));
    const result = await driver.callTool('echo', { text: 'x' }, ctx);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `integration "issues" (upstream ${upstream.url}) refused the stored credentials (HTTP 401); ` +
        `check the headers with 'sluice integrations set ${ORG} issues --header "authorization=…"'`,
    );
    const err = await listError(driver.listTools(ctx));
    expect(err.message).toContain('integration "issues"');
    expect(err.message).toContain('HTTP 401');
    expect(upstream.rejected).toBeGreaterThan(rejectedBefore);
    expect(upstream.calls.filter((c) => c.arguments.text === 'x')).toEqual([]);
  });

  it('never shows a credential, even one the upstream echoes back', async () => {
    const sink = new Capture();
    const secret = 'Bearer wrong-secret-4711';
    const driver = upstreamDriver(ISSUES);
    const ctx = context(record(upstream.url, { authorization: secret }), undefined, sink);
    const result = await driver.callTool('echo', { text: 'x' }, ctx);
    const err = await listError(driver.listTools(ctx));
    for (const shown of [text(result), err.message, sink.text]) {
      expect(shown).not.toContain('wrong-secret-4711');
    }
    expect(sink.text).toContain('upstream MCP call failed');
  });

  it('gives up on an upstream that does not answer within the timeout, and closes the call', async () => {
    const driver = upstreamDriver(ISSUES, { timeoutMs: 300 });
    const started = Date.now();
    const result = await driver.callTool('slow', {}, context(record(upstream.url, { authorization: 'Bearer secret' })));
    const elapsed = Date.now() - started;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`integration "issues" (upstream ${upstream.url}) did not answer within 0.3 s`);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
    // The abandoned call's response stream is closed, not left open on the upstream.
    await until(() => upstream.inFlight === 0);
  });

  it('stops as soon as the caller aborts', async () => {
    const controller = new AbortController();
    const driver = upstreamDriver(ISSUES, { timeoutMs: 10_000 });
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('client went away')), 100);
    const result = await driver.callTool('slow', {}, context(record(upstream.url, { authorization: 'Bearer secret' }), controller.signal));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('integration "issues"');
    expect(text(result)).toContain('cancelled: client went away');
    await until(() => upstream.inFlight === 0);

    const already = await driver.callTool('echo', { text: 'late' }, context(record(upstream.url, { authorization: 'Bearer secret' }), AbortSignal.abort()));
    expect(already.isError).toBe(true);
    expect(upstream.calls.filter((c) => c.arguments.text === 'late')).toEqual([]);
  });

  it.each([
    ['crash', 'dropped the connection (other side closed) before answering'],
    ['hangup', 'dropped the connection (other side closed) before answering'],
    ['vanish', 'closed the response before answering'],
  ])('reports an upstream that dies mid-call (%s) well before the timeout', async (tool, what) => {
    const driver = upstreamDriver(ISSUES, { timeoutMs: 5000 });
    const started = Date.now();
    const result = await driver.callTool(tool, {}, context(record(upstream.url, { authorization: 'Bearer secret' })));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`integration "issues" (upstream ${upstream.url}) ${what}; the upstream server may have crashed or restarted`);

    // The stand-in survives; the next call goes through.
    const after = await driver.callTool('echo', { text: 'still there' }, context(record(upstream.url, { authorization: 'Bearer secret' })));
    expect(text(after)).toBe('still there');
  });

  it('fails fast when nothing listens at the URL, without showing the URL secrets', async () => {
    const free = await freeLoopbackUrl();
    const port = new URL(free).port;
    const url = `http://robot:pw-secret-0042@127.0.0.1:${port}/mcp?api_key=qs-secret-0043`;
    const sink = new Capture();
    const driver = upstreamDriver(ISSUES);
    const ctx = context(record(url, { authorization: 'Bearer secret', 'x-api-key': 'hdr-secret-0044' }), undefined, sink);
    const started = Date.now();
    const result = await driver.callTool('echo', { text: 'x' }, ctx);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      new RegExp(
        `^integration "issues" \\(upstream http://127\\.0\\.0\\.1:${port}/mcp\\?…\\) is unreachable: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; ` +
          `check the URL with 'sluice integrations set ${ORG} issues --url …'$`,
      ),
    );
    const err = await listError(driver.listTools(ctx));
    expect(err.message).toContain('is unreachable: connect ECONNREFUSED');
    for (const shown of [text(result), err.message, sink.text]) {
      for (const secret of ['pw-secret-0042', 'qs-secret-0043', 'hdr-secret-0044', 'robot', 'Bearer secret', 'api_key']) {
        expect(shown).not.toContain(secret);
      }
    }
  });

  it('turns userinfo in the URL into Basic credentials', async () => {
    const basic = await startUpstreamMcp({ authorization: `Basic ${Buffer.from('robot:pw 1').toString('base64')}` });
    try {
      const url = basic.url.replace('http://', 'http://robot:pw%201@');
      const result = await upstreamDriver(ISSUES).callTool('echo', { text: 'via basic' }, context(record(url, undefined)));
      expect(text(result)).toBe('via basic');
    } finally {
      await basic.close();
    }
  });

  it('explains an integration with no usable URL', async () => {
    const driver = upstreamDriver(UPSTREAM_KINDS.find((k) => k.name === 'chat')!);
    const none = await driver.callTool('post_message', {}, context(undefined));
    expect(none).toEqual({
      isError: true,
      content: [{ type: 'text', text: `integration "chat" has no upstream URL; set it with 'sluice integrations set ${ORG} chat --url …'` }],
    });
    const err = await listError(driver.listTools(context(undefined)));
    expect(err.message).toContain('has no upstream URL');
    const bad = await driver.callTool('post_message', {}, context(record('not a url token=abc-secret-9', undefined)));
    expect(text(bad)).toContain('is not an http(s) URL');
    expect(text(bad)).not.toContain('abc-secret-9');
  });

  it('answers HTTP errors of a wrong path with a hint', async () => {
    const url = upstream.url.replace('/mcp', '/nope');
    const result = await upstreamDriver(ISSUES).callTool('echo', { text: 'x' }, context(record(url, { authorization: 'Bearer secret' })));
    expect(text(result)).toBe(
      `integration "issues" (upstream ${url}) has no MCP endpoint at that path (HTTP 404); check the URL with 'sluice integrations set ${ORG} issues --url …'`,
    );
  });
});

describe('upstream forwarding drivers, upstream answering plain JSON', () => {
  let upstream: UpstreamMcp;
  beforeAll(async () => {
    upstream = await startUpstreamMcp({ jsonResponse: true });
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('lists and calls the same way', async () => {
    const driver = upstreamDriver(ISSUES);
    const ctx = context(record(upstream.url, { authorization: 'Bearer secret' }));
    expect(await driver.listTools(ctx)).toEqual(UPSTREAM_TOOLS);
    expect(text(await driver.callTool('echo', { text: 'plain' }, ctx))).toBe('plain');
  });

  it('reports a dropped connection at once and a silent one at the timeout', async () => {
    const driver = upstreamDriver(ISSUES, { timeoutMs: 300 });
    const ctx = context(record(upstream.url, { authorization: 'Bearer secret' }));
    const crashed = await driver.callTool('crash', {}, ctx);
    expect(text(crashed)).toContain('dropped the connection (other side closed) before answering');
    const slow = await driver.callTool('slow', {}, ctx);
    expect(text(slow)).toBe(`integration "issues" (upstream ${upstream.url}) did not answer within 0.3 s`);
  });
});

describe('upstream forwarding drivers, stateful upstream', () => {
  let upstream: UpstreamMcp;
  beforeAll(async () => {
    upstream = await startUpstreamMcp({ stateful: true });
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('forwards through a per-request MCP session and deletes it afterwards', async () => {
    const driver = upstreamDriver(ISSUES);
    const ctx = context(record(upstream.url, { authorization: 'Bearer secret' }));
    expect(await driver.listTools(ctx)).toEqual(UPSTREAM_TOOLS);
    expect(text(await driver.callTool('echo', { text: 'with a session' }, ctx))).toBe('with a session');
    await until(() => upstream.openSessions === 0 && upstream.inFlight === 0);
  });
});
