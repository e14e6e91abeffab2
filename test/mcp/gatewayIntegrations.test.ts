import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../support/child.js';
import { fixture, startKubeApi, type KubeApiStandIn } from '../support/kubeApi.js';
import { textOf } from '../support/mcpClient.js';
import { startTestServer, waitFor, type TestServer } from '../support/server.js';
import { UPSTREAM_TOOLS, startUpstreamMcp, type UpstreamMcp } from '../support/upstreamMcp.js';

/**
 * The tool gateway end to end, configured the way an operator does it: the `sluice integrations`
 * CLI writes the metadata store of a running server, the server follows through its directory
 * watch, and an agent talks to the gateway with the MCP SDK's own client over loopback HTTP.
 * Behind the gateway sit the stand-in Kubernetes API and a stand-in upstream MCP server.
 */

const UPSTREAM_TIMEOUT_MS = 1500;
/** SLACK is what a bounded call may take past its bound: the gateway's own work and the HTTP round trips. */
const SLACK_MS = 1500;
const KUBE_TOOLS = ['list_clusters', 'list_api_resources', 'list_resources', 'get_resource', 'list_events', 'pod_logs'];

interface SentRequest {
  url: string;
  headers: Record<string, string>;
}

describe('tool gateway integrations configured with the CLI', () => {
  let srv: TestServer;
  let kube: KubeApiStandIn;
  let upstream: UpstreamMcp;
  let tmp: string;
  const clients: Client[] = [];
  /** sent records every HTTP request the test's MCP clients made, with their headers. */
  const sent: SentRequest[] = [];

  /** connect opens the SDK client on one driver endpoint, recording what it sends. */
  const connect = async (driver: string, headers: Record<string, string> = {}): Promise<Client> => {
    const url = new URL(`${srv.url}/api/orgs/${srv.orgId}/integrations/${driver}/mcp`);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { 'x-svc-api-key': srv.key, ...headers } },
      fetch: async (input, init) => {
        sent.push({ url: String(input), headers: Object.fromEntries(new Headers(init?.headers).entries()) });
        return fetch(input, init);
      },
    });
    const client = new Client({ name: 'sluice-integrations-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  /** call runs a tool with a client-side bound well past the server's, so a hung request fails the test instead of stalling it. */
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: UPSTREAM_TIMEOUT_MS + 4 * SLACK_MS })) as CallToolResult;

  const discovered = async (): Promise<Array<{ type: string; description: string; path: string }>> => {
    const res = await fetch(`${srv.url}/api/orgs/${srv.orgId}/integrations`, { headers: { 'x-svc-api-key': srv.key } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { integrations: Array<{ type: string; description: string; path: string }> }).integrations;
  };
  const discoveredTypes = async (): Promise<string[]> => (await discovered()).map((i) => i.type);

  /** cli runs `sluice integrations ...` against the running server's data directory. */
  const cli = (...args: string[]) => runCli(['integrations', ...args, '--data-dir', srv.dataDir]);

  beforeAll(async () => {
    [kube, upstream, tmp] = await Promise.all([startKubeApi(), startUpstreamMcp(), mkdtemp(path.join(tmpdir(), 'sluice-gw-int-'))]);
    srv = await startTestServer({ SVC_MCP_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) });
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await srv?.stop();
    await upstream?.close();
    await kube?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  describe('kube', () => {
    it('is configured with the CLI from a kubeconfig file and appears in discovery', async () => {
      expect(await discoveredTypes()).toEqual(['telemetry', 'common']);
      const file = path.join(tmp, 'kubeconfig.yaml');
      await writeFile(file, kube.kubeconfig(), { mode: 0o600 });
      const res = runCli(['integrations', 'set', srv.orgId, 'kube', '--kubeconfig', file, '--data-dir', srv.dataDir]);
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      expect(res.stdout).toContain('kube: active');
      expect(res.stdout).toContain('kubeconfig stored');
      expect(res.stdout + res.stderr).not.toContain(kube.token);
      await waitFor(async () => (await discoveredTypes()).includes('kube'));
      const entry = (await discovered()).find((i) => i.type === 'kube')!;
      expect(entry.path).toBe(`/api/orgs/${srv.orgId}/integrations/kube/mcp`);
      expect(entry.description).toContain('X-Kube-Cluster');
    });

    it('lists its six tools and its clusters without the cluster header', async () => {
      const client = await connect('kube');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(KUBE_TOOLS);
      for (const t of tools) expect(t.annotations?.readOnlyHint).toBe(true);
      // Like every driver's, the whole list stays under about 4,000 tokens (4 characters each).
      expect(JSON.stringify(tools).length / 4).toBeLessThan(4000);
      const clusters = await call(client, 'list_clusters');
      expect(clusters.isError).toBeFalsy();
      expect((clusters.structuredContent as { clusters: Array<{ slug: string; server: string }> }).clusters).toEqual([
        expect.objectContaining({ slug: 'prod-eu', context: 'prod-eu', server: kube.url, namespace: 'shop' }),
        expect.objectContaining({ slug: 'staging-us', context: 'Staging.US', server: kube.url, namespace: 'default' }),
      ]);
      // Listing clusters reads the stored kubeconfig only; the cluster is not contacted.
      expect(kube.requests).toHaveLength(0);
    });

    it('refuses a cluster tool without the header, as a tool error', async () => {
      const client = await connect('kube');
      const result = await call(client, 'list_resources', { kind: 'pods' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^missing cluster credentials/);
      expect(textOf(result)).toContain('prod-eu, staging-us');
      expect(kube.requests).toHaveLength(0);
    });

    it('lists the pods of the selected cluster and redacts Secret values', async () => {
      const client = await connect('kube', { 'X-Kube-Cluster': 'prod-eu' });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(KUBE_TOOLS);
      const pods = await call(client, 'list_resources', { kind: 'pods' });
      expect(pods.isError, textOf(pods)).toBeFalsy();
      const listed = pods.structuredContent as { cluster: string; kind: string; items: Array<{ name: string; namespace?: string }>; count: number };
      const expected = (fixture('pods.json').items as Array<{ metadata: { name: string; namespace: string } }>)
        .filter((p) => p.metadata.namespace === 'shop')
        .map((p) => p.metadata.name);
      expect(expected.length).toBeGreaterThan(1);
      expect(listed).toMatchObject({ cluster: 'prod-eu', kind: 'Pod', count: expected.length });
      expect(listed.items.map((i) => i.name).sort()).toEqual([...expected].sort());
      for (const name of expected) expect(textOf(pods)).toContain(name);

      const secret = await call(client, 'get_resource', { kind: 'secret', name: 'checkout-db' });
      expect(secret.isError, textOf(secret)).toBeFalsy();
      const obj = parse((secret.structuredContent as { yaml: string }).yaml) as { kind: string; data: Record<string, string> };
      expect(obj.kind).toBe('Secret');
      expect(obj.data).toEqual({ password: '<redacted>', username: '<redacted>' });
      expect(textOf(secret)).toContain('<redacted>');
      const everything = JSON.stringify(secret);
      for (const value of ['czNjcjN0LXA0c3N3MHJk', 'Y2hlY2tvdXQ=']) expect(everything).not.toContain(value);

      // The stand-in saw the stored kubeconfig's token on every request; nobody logged it.
      expect(kube.requests.length).toBeGreaterThan(0);
      for (const r of kube.requests) expect(r.authorization).toBe(`Bearer ${kube.token}`);
      expect(srv.logs.text()).not.toContain(kube.token);
    });
  });

  describe('upstream forwarding', () => {
    it('is configured with the CLI (URL and credential header) and appears in discovery', async () => {
      const res = cli('set', srv.orgId, 'issues', '--url', upstream.url, '--header', 'authorization=Bearer secret');
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      expect(res.stdout).toContain('issues: active');
      expect(res.stdout).toContain('headers authorization');
      expect(res.stdout).not.toContain('Bearer secret');
      await waitFor(async () => (await discoveredTypes()).includes('issues'));
      expect(await discoveredTypes()).toEqual(['telemetry', 'common', 'kube', 'issues']);
    });

    it("passes tools/list and tools/call through, injecting the stored credential the caller never sent", async () => {
      const before = upstream.authorizations.length;
      const sentBefore = sent.length;
      const client = await connect('issues');
      const { tools } = await client.listTools();
      expect(tools).toEqual(UPSTREAM_TOOLS);

      const echoed = await call(client, 'echo', { text: 'hello through the gateway' });
      expect(echoed.isError).toBeFalsy();
      expect(textOf(echoed)).toBe('hello through the gateway');
      expect(echoed.structuredContent).toEqual({ text: 'hello through the gateway' });
      expect(upstream.calls.at(-1)).toEqual({ name: 'echo', arguments: { text: 'hello through the gateway' } });

      const found = await call(client, 'search_issues', { query: 'timeout', limit: 1 });
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent as { issues: Array<{ key: string }> }).issues).toEqual([expect.objectContaining({ key: 'OPS-2' })]);

      // The upstream saw the stored credential on every request it received...
      const presented = upstream.authorizations.slice(before);
      expect(presented.length).toBeGreaterThanOrEqual(3);
      expect(new Set(presented)).toEqual(new Set(['Bearer secret']));
      expect(upstream.rejected).toBe(0);
      // ...and the caller sent only its API key: no Authorization header, no secret.
      const mine = sent.slice(sentBefore);
      expect(mine.length).toBeGreaterThanOrEqual(3);
      for (const r of mine) {
        expect(r.headers).not.toHaveProperty('authorization');
        expect(JSON.stringify(r.headers)).not.toContain('secret');
        expect(r.headers['x-svc-api-key']).toBe(srv.key);
      }
    });

    it('reports an upstream that dies mid-call as a tool error naming the integration, well within the bound', async () => {
      const client = await connect('issues');
      const started = Date.now();
      const result = await call(client, 'crash');
      const took = Date.now() - started;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^integration "issues" \(upstream http:\/\/127\.0\.0\.1:\d+\/mcp\) dropped the connection/);
      expect(textOf(result)).toContain('may have crashed or restarted');
      expect(took).toBeLessThan(UPSTREAM_TIMEOUT_MS);
      // The gateway still answers on the next call.
      expect(textOf(await call(client, 'echo', { text: 'still here' }))).toBe('still here');
    });

    it('turns an upstream that never answers into a timeout tool error at the bound, never a hung request', async () => {
      const client = await connect('issues');
      const started = Date.now();
      const result = await call(client, 'slow');
      const took = Date.now() - started;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(`integration "issues" (upstream ${upstream.url}) did not answer within 1.5 s`);
      expect(took).toBeGreaterThanOrEqual(UPSTREAM_TIMEOUT_MS - 50);
      expect(took).toBeLessThan(UPSTREAM_TIMEOUT_MS + SLACK_MS);
      // The gateway hung up on the upstream rather than leaving the request open.
      await waitFor(() => upstream.inFlight === 0);
    });

    it('reports refused credentials without echoing them, with a fix the CLI accepts', async () => {
      const wrong = cli('set', srv.orgId, 'issues', '--header', 'authorization=Bearer wrong-token-4711');
      expect(wrong.status).toBe(0);
      expect(wrong.stdout + wrong.stderr).not.toContain('wrong-token-4711');
      const client = await connect('issues');
      // The running server follows the change: the next call presents the new (wrong) header.
      let result: CallToolResult | undefined;
      await waitFor(async () => {
        result = await call(client, 'echo', { text: 'x' });
        return result.isError === true;
      });
      const text = textOf(result!);
      expect(text).toContain('integration "issues"');
      expect(text).toContain('refused the stored credentials (HTTP 401)');
      // The stand-in echoes the credential it was shown in its 401 body; it must not come back.
      expect(text).not.toContain('wrong-token-4711');
      expect(upstream.rejected).toBeGreaterThan(0);

      // The message tells the operator which command to run; with the real value filled in, it works.
      const hint = /'(sluice integrations set [^']*?)--header (["'])(.+?)\2'?$/.exec(text);
      expect(hint, text).not.toBeNull();
      const [, command, , header] = hint!;
      expect(command.trim().split(' ')).toEqual(['sluice', 'integrations', 'set', srv.orgId, 'issues']);
      expect(header).toMatch(/^authorization=…$/);
      const fixed = cli('set', srv.orgId, 'issues', '--header', header.replace('…', 'Bearer secret'));
      expect(fixed.stderr).toBe('');
      expect(fixed.status).toBe(0);
      await waitFor(async () => !(await call(client, 'echo', { text: 'y' })).isError);
      expect(textOf(await call(client, 'echo', { text: 'fixed' }))).toBe('fixed');
    });

    it('never writes the stored credential to the server log', () => {
      const logs = srv.logs.text();
      expect(logs).toContain('upstream MCP call failed');
      expect(logs).not.toContain('secret');
      expect(logs).not.toContain('wrong-token-4711');
    });
  });

  describe('disable', () => {
    it('takes the integration out of discovery; its calls then succeed empty without reaching the upstream', async () => {
      const res = cli('disable', srv.orgId, 'issues');
      expect(res.status).toBe(0);
      expect(res.stdout).toContain('issues: disabled');
      await waitFor(async () => !(await discoveredTypes()).includes('issues'));
      expect(await discoveredTypes()).toEqual(['telemetry', 'common', 'kube']);

      const callsBefore = upstream.calls.length;
      const requestsBefore = upstream.authorizations.length;
      const client = await connect('issues');
      expect((await client.listTools()).tools).toEqual([]);
      const result = await call(client, 'echo', { text: 'anyone there?' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ results: [], inactive: true });
      expect(textOf(result)).toContain('"issues" integration is disabled');
      expect(textOf(result)).toContain(`sluice integrations enable ORG issues`);
      expect(upstream.calls.length).toBe(callsBefore);
      // Disabled means no traffic at all to the upstream, not even to list its tools.
      expect(upstream.authorizations.length).toBe(requestsBefore);

      // Enabling again restores forwarding with the configuration kept.
      expect(cli('enable', srv.orgId, 'issues').status).toBe(0);
      await waitFor(async () => (await discoveredTypes()).includes('issues'));
      expect(textOf(await call(client, 'echo', { text: 'back' }))).toBe('back');
      expect(srv.logs.text()).not.toContain('secret');
    });
  });
});
