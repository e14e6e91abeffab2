/**
 * The LogQL conformance corpus (../shared/conformance/logql) through the Loki HTTP API: every
 * data state of every script is pushed through `POST /loki/api/v1/push` into an org of its own
 * (snappy protobuf and JSON in turn), every eval is asked of `/loki/api/v1/query` or
 * `query_range` (in turn a GET with epoch times and float-second steps, and a form-encoded POST
 * with RFC 3339 times and Go-duration steps), and the answers are judged by the engine
 * runner's comparison. The run must pass exactly the evals the engine passes when it evaluates
 * the same scripts directly, file by file, so the wire format, push decoding and parameter
 * handling change nothing.
 *
 * The corpus is dated 2026-01-01, older than the default retention, so each org keeps its data
 * forever (retentionDays 0, which also lifts the too-old bound on push), and reads it as the
 * corpus was written: without Loki's level discovery (discoverLogLevels 0), which would give
 * every line `level` and `detected_level` labels the expectations do not have.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  formatFailures,
  listScripts,
  parseScript,
  runScript,
  summarize,
  type EvalCommand,
  type EvalOutcome,
  type LoadEntry,
} from '../../engine/conformance/logql/index.js';
import { evalOverHttp, pushState, type OrgAccess, type PushFormat } from '../support/logqlOverHttp.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { describeWithShared, sharedPath } from '../support/sharedBundle.js';

const SYSTEM_KEY = 'system-key-for-logql-conformance-over-http-0123456789';
const CORPUS_DIR = sharedPath('conformance/logql');

/** DataState is the streams a run of evals reads: the entries loaded since the last clear. */
interface DataState {
  entries: LoadEntry[];
  evals: EvalCommand[];
}

/** dataStates splits a script into its data states, each with the evals that read it. */
function dataStates(text: string): DataState[] {
  const states: DataState[] = [];
  let entries: LoadEntry[] = [];
  let current: DataState | undefined;
  for (const cmd of parseScript(text)) {
    if (cmd.kind === 'clear') {
      entries = [];
      current = undefined;
    } else if (cmd.kind === 'load') {
      entries = [...entries, ...cmd.entries];
      current = undefined;
    } else {
      if (current === undefined) states.push((current = { entries, evals: [] }));
      current.evals.push(cmd);
    }
  }
  return states;
}

describeWithShared('conformance/logql', 'LogQL conformance corpus through the Loki HTTP API', () => {
  let srv: TestServer;
  let orgCount = 0;
  let pushCount = 0;
  const all: EvalOutcome[] = [];

  beforeAll(async () => {
    srv = await startTestServer({ SVC_MCP_API_KEY: SYSTEM_KEY });
  });

  afterAll(async () => {
    await srv?.stop();
  });

  /** newOrg makes an org for one data state, keeping its data forever and its lines as sent. */
  async function newOrg(): Promise<OrgAccess> {
    const org = await srv.admin.createOrg(`logql-conformance-${++orgCount}`);
    const { key } = await srv.admin.createKey(org.id, 'conformance');
    const res = await fetch(`${srv.url}/api/admin/orgs/${org.id}/settings`, {
      method: 'PATCH',
      body: JSON.stringify({ retentionDays: 0, discoverLogLevels: false }),
      headers: { 'x-svc-api-key': SYSTEM_KEY, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    const settings = ((await res.json()) as { settings: Record<string, { value: number }> }).settings;
    expect(settings.retentionDays.value).toBe(0);
    expect(settings.discoverLogLevels.value).toBe(0);
    return { url: srv.url, key };
  }

  /**
   * load pushes a state into a fresh org. The server applies a settings change from the next
   * request after its settings view reloads, so a push refused as too old (the default
   * retention still in force) is repeated until the change has landed.
   */
  async function load(state: DataState): Promise<OrgAccess> {
    const access = await newOrg();
    const format: PushFormat = pushCount++ % 2 === 0 ? 'protobuf' : 'json';
    let last = '';
    await waitFor(async () => {
      const res = await pushState(access, state.entries, format);
      last = `${res.status} ${await res.text()}`;
      if (res.status === 204) return true;
      expect(last).toContain('too_old');
      return false;
    }, 5000).catch(() => {
      throw new Error(`push of ${format} refused: ${last}`);
    });
    return access;
  }

  for (const file of listScripts([CORPUS_DIR])) {
    const name = path.basename(file, '.logqltest');
    it(`${name}: passes over HTTP exactly the evals the engine passes`, async () => {
      const text = readFileSync(file, 'utf8');
      const engine = runScript(name, text);
      const wire: EvalOutcome[] = [];
      let n = 0;
      for (const state of dataStates(text)) {
        const access = await load(state);
        for (const cmd of state.evals) wire.push(await evalOverHttp(access, name, cmd, n++ % 2 === 1));
      }
      all.push(...wire);
      expect(wire.map((o) => o.line)).toEqual(engine.map((o) => o.line));
      const differ = wire.filter((o, i) => (o.outcome === 'passed') !== (engine[i].outcome === 'passed'));
      if (differ.length > 0) console.log(formatFailures(differ));
      expect(differ.map((o) => `${o.line}: ${o.query}: ${o.detail}`)).toEqual([]);
      const passed = wire.filter((o) => o.outcome === 'passed').length;
      expect(passed).toBe(engine.filter((o) => o.outcome === 'passed').length);
      expect(passed).toBeGreaterThan(0);
    }, 120_000);
  }

  it('covers the whole corpus: more than 800 evals, all pushed and asked over HTTP', () => {
    const summary = summarize(all);
    console.log(`LogQL over the Loki API: ${summary.total.passed} passed, ${summary.total.failed} failed, ${summary.total.unsupported} unsupported`);
    expect(summary.total.passed + summary.total.failed + summary.total.unsupported).toBeGreaterThan(800);
    expect(summary.total.passed / all.length).toBeGreaterThanOrEqual(0.95);
  });
});
