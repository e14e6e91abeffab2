import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import AjvModule from 'ajv';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CallContext, Driver } from '../../src/mcp/driver.js';
import { kubeDriver } from '../../src/mcp/drivers/kube/index.js';
import type { IntegrationRecord } from '../../src/meta/types.js';
import { fixture, startKubeApi, status, type KubeApiStandIn } from '../support/kubeApi.js';

const Ajv = AjvModule.default;
const log = pino({ level: 'silent' });
const ORG = '3f9c1c52-7f0e-4d59-9a43-2d1c8e5b7a10';

const TOOLS = ['list_clusters', 'list_api_resources', 'list_resources', 'get_resource', 'list_events', 'pod_logs'];

describe('kube driver', () => {
  let api: KubeApiStandIn;
  let driver: Driver;
  let tools: Map<string, Tool>;
  const ajv = new Ajv({ strict: false });

  beforeAll(async () => {
    api = await startKubeApi();
    driver = kubeDriver();
    tools = new Map((await driver.listTools(context())).map((t) => [t.name, t]));
    // The first call loads the Kubernetes client library; doing it here keeps that one-off
    // cost out of the tests that time calls.
    await kubeDriver().callTool('list_resources', { kind: 'nodes' }, context({ 'x-kube-cluster': 'prod-eu' }));
    api.reset();
  });
  afterEach(() => api.reset());
  afterAll(async () => {
    await api.close();
  });

  /** record is the org's kube integration; null stands for a record without a kubeconfig. */
  function record(kubeconfig: string | null = api.kubeconfig()): IntegrationRecord {
    return { orgId: ORG, driver: 'kube', enabled: true, kubeconfig: kubeconfig ?? undefined, updatedAt: '2026-11-25T12:00:00Z' };
  }

  function context(headers: Record<string, string> = {}, extra: Partial<CallContext> = {}): CallContext {
    return { orgId: ORG, integration: record(), headers, signal: new AbortController().signal, log, ...extra };
  }

  /** call runs a tool; a successful result must carry structured content its output schema accepts. */
  async function call(name: string, args: Record<string, unknown>, ctx: CallContext = context({ 'x-kube-cluster': 'prod-eu' }), on: Driver = driver): Promise<CallToolResult> {
    const result = await on.callTool(name, args, ctx);
    if (!result.isError) {
      const schema = tools.get(name)?.outputSchema;
      expect(schema, `${name} has an output schema`).toBeDefined();
      const validate = ajv.compile(schema!);
      expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
    }
    return result;
  }

  const text = (r: CallToolResult): string => (r.content[0] as { text: string }).text;
  const data = (r: CallToolResult): any => r.structuredContent;

  describe('definition', () => {
    it('is the kube driver, off by default, configured by a kubeconfig', () => {
      expect(driver.name).toBe('kube');
      expect(driver.enabledByDefault).toBe(false);
      expect(driver.configured(record())).toBe(true);
      expect(driver.configured(record(null))).toBe(false);
      expect(driver.configured(record('   '))).toBe(false);
      expect(kubeDriver({ defaultKubeconfig: api.kubeconfig() }).configured(record(null))).toBe(true);
    });

    it('lists six read-only tools with titles, examples and output schemas', () => {
      expect([...tools.keys()]).toEqual(TOOLS);
      for (const tool of tools.values()) {
        expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
        expect(tool.title).toBeTruthy();
        expect(tool.description).toMatch(/Example/);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
        for (const [arg, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
          expect((schema as { description?: string }).description, `${tool.name}.${arg}`).toBeTruthy();
        }
      }
    });
  });

  describe('cluster selection', () => {
    it('lists clusters without the header', async () => {
      const result = await call('list_clusters', {}, context());
      expect(result.isError).toBeFalsy();
      expect(data(result)).toEqual({
        clusters: [
          { slug: 'prod-eu', context: 'prod-eu', server: api.url, namespace: 'shop', selected: false },
          { slug: 'staging-us', context: 'Staging.US', server: api.url, namespace: 'default', selected: false },
        ],
      });
      expect(text(result)).toContain('SLUG');
      expect(text(result)).toContain('No X-Kube-Cluster header');
      expect(api.requests).toHaveLength(0);
    });

    it('says which cluster the header selects', async () => {
      const result = await call('list_clusters', {}, context({ 'x-kube-cluster': 'staging-us' }));
      expect(data(result).selected).toBe('staging-us');
      expect(data(result).clusters.map((c: { selected: boolean }) => c.selected)).toEqual([false, true]);
      const unknown = await call('list_clusters', {}, context({ 'x-kube-cluster': 'nowhere' }));
      expect(data(unknown).selected).toBeUndefined();
      expect(data(unknown).header).toBe('nowhere');
      expect(text(unknown)).toContain('matches no cluster');
    });

    it('refuses every other tool without the header, naming the slugs', async () => {
      const args: Record<string, Record<string, unknown>> = {
        list_api_resources: {},
        list_resources: { kind: 'pods' },
        get_resource: { kind: 'pods', name: 'x' },
        list_events: {},
        pod_logs: { pod: 'x' },
      };
      for (const [name, a] of Object.entries(args)) {
        const result = await call(name, a, context());
        expect(result.isError, name).toBe(true);
        expect(text(result)).toMatch(/^missing cluster credentials:/);
        expect(text(result)).toContain('X-Kube-Cluster');
        expect(text(result)).toContain('prod-eu, staging-us');
      }
      const blank = await call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': '  ' }));
      expect(text(blank)).toMatch(/^missing cluster credentials:/);
      expect(api.requests).toHaveLength(0);
    });

    it('reports missing credentials first even when no kubeconfig is configured', async () => {
      const result = await call('list_events', {}, context({}, { integration: undefined }));
      expect(text(result)).toMatch(/^missing cluster credentials:/);
      expect(text(result)).toContain('no kubeconfig is configured');
      const listed = await call('list_clusters', {}, context({}, { integration: undefined }));
      expect(listed.isError).toBe(true);
      expect(text(listed)).toContain('no kubeconfig is configured');
    });

    it('names the valid slugs for an unknown one', async () => {
      const result = await call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': 'prod-us' }));
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('unknown cluster "prod-us" in the X-Kube-Cluster header; valid cluster slugs: prod-eu, staging-us');
    });

    it('accepts the context name itself as the header', async () => {
      const result = await call('list_resources', { kind: 'ns' }, context({ 'x-kube-cluster': 'Staging.US' }));
      expect(result.isError).toBeFalsy();
      expect(data(result).cluster).toBe('staging-us');
    });

    it('uses the default kubeconfig when the record has none', async () => {
      const withDefault = kubeDriver({ defaultKubeconfig: api.kubeconfig([{ name: 'ops' }]) });
      const result = await call('list_resources', { kind: 'nodes' }, context({ 'x-kube-cluster': 'ops' }, { integration: record(null) }), withDefault);
      expect(result.isError).toBeFalsy();
      expect(data(result).count).toBe(2);
    });

    it('refuses a stored kubeconfig that would run a program on the gateway host', async () => {
      const exec = api.kubeconfig().replace(/user:\n {6}token: .*/, 'user:\n      exec:\n        apiVersion: client.authentication.k8s.io/v1\n        command: /bin/sh');
      expect(exec).toContain('command: /bin/sh');
      const result = await call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': 'prod-eu' }, { integration: record(exec) }));
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('uses "exec"');
      expect(api.requests).toHaveLength(0);
    });

    it('sends the kubeconfig bearer token', async () => {
      await call('list_resources', { kind: 'pods' });
      expect(api.requests.length).toBeGreaterThan(0);
      for (const r of api.requests) expect(r.authorization).toBe(`Bearer ${api.token}`);
    });
  });

  describe('list_api_resources', () => {
    it('lists kinds of the core API and every group, leaving out subresources', async () => {
      const result = await call('list_api_resources', {}, context({ 'x-kube-cluster': 'prod-eu' }), kubeDriver());
      expect(result.isError).toBeFalsy();
      const resources: any[] = data(result).resources;
      expect(resources.find((r) => r.name === 'pods')).toEqual({
        kind: 'Pod',
        name: 'pods',
        group: '',
        version: 'v1',
        apiVersion: 'v1',
        namespaced: true,
        shortNames: ['po'],
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      });
      expect(resources.find((r) => r.name === 'deployments')).toMatchObject({ apiVersion: 'apps/v1', shortNames: ['deploy'] });
      expect(resources.find((r) => r.name === 'cronjobs')).toMatchObject({ apiVersion: 'batch/v1', shortNames: ['cj'] });
      expect(resources.find((r) => r.name === 'nodes')).toMatchObject({ namespaced: false });
      expect(resources.some((r) => r.name.includes('/'))).toBe(false);
      // metrics.k8s.io answers 503 in the stand-in, as a dead metrics-server does.
      expect(data(result).unavailable).toEqual([{ groupVersion: 'metrics.k8s.io/v1beta1', reason: expect.stringContaining('503') }]);
      expect(data(result).truncated).toBe(false);
      expect(text(result)).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\s+VERBS/);
      expect(text(result)).toContain('Unavailable API groups');
      expect(api.requests.map((r) => r.path).sort()).toEqual(['/api', '/api/v1', '/apis', '/apis/apps/v1', '/apis/batch/v1', '/apis/metrics.k8s.io/v1beta1']);
    });

    it('narrows to one group', async () => {
      const apps = await call('list_api_resources', { group: 'apps' });
      expect(data(apps).resources.map((r: any) => r.name)).toEqual(['controllerrevisions', 'daemonsets', 'deployments', 'replicasets', 'statefulsets']);
      const core = await call('list_api_resources', { group: 'core' });
      expect(data(core).resources.every((r: any) => r.apiVersion === 'v1')).toBe(true);
      const missing = await call('list_api_resources', { group: 'cert-manager.io' });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toContain('no API group "cert-manager.io"');
    });

    it('lists the other groups when one group hangs', async () => {
      const quick = kubeDriver({ timeoutMs: 1_000 });
      api.hang('/apis/batch/v1');
      const started = Date.now();
      const result = await call('list_api_resources', {}, context({ 'x-kube-cluster': 'prod-eu' }), quick);
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(result.isError).toBeFalsy();
      expect(data(result).resources.some((r: any) => r.name === 'deployments')).toBe(true);
      expect(data(result).unavailable.map((u: any) => u.groupVersion)).toContain('batch/v1');
    });

    it('remembers discovery between calls', async () => {
      const cached = kubeDriver();
      const ctx = context({ 'x-kube-cluster': 'prod-eu' });
      await call('list_resources', { kind: 'deploy' }, ctx, cached);
      const first = api.requests.filter((r) => r.path === '/api/v1').length;
      await call('list_resources', { kind: 'deploy' }, ctx, cached);
      expect(first).toBe(1);
      expect(api.requests.filter((r) => r.path === '/api/v1')).toHaveLength(1);
    });
  });

  describe('list_resources', () => {
    it('lists pods of the context namespace with ready, status and restarts', async () => {
      const result = await call('list_resources', { kind: 'po' });
      expect(result.isError).toBeFalsy();
      const d = data(result);
      expect(d).toMatchObject({ cluster: 'prod-eu', kind: 'Pod', apiVersion: 'v1', scope: 'namespace', namespace: 'shop', count: 4, truncated: false });
      const rows = Object.fromEntries(d.items.map((r: any) => [r.name, r]));
      expect(rows['checkout-7d9c6b5f4-x2x9k']).toMatchObject({ namespace: 'shop', ready: '2/2', status: 'Running', restarts: 0, created: '2026-11-20T08:14:02Z' });
      expect(rows['checkout-7d9c6b5f4-qzr8m']).toMatchObject({ ready: '1/2', status: 'CrashLoopBackOff', restarts: 7 });
      expect(rows['cart-5b8f7c9d6-lm4pq']).toMatchObject({ ready: '0/1', status: 'ImagePullBackOff' });
      expect(rows['db-migrate-28401230-abcde']).toMatchObject({ ready: '0/1', status: 'Completed' });
      const lines = text(result).split('\n');
      expect(lines[0]).toBe('pods (v1) in namespace "shop" on cluster "prod-eu": 4');
      expect(lines[1]).toMatch(/^NAME\s+NAMESPACE\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
      expect(lines.find((l) => l.startsWith('checkout-7d9c6b5f4-qzr8m'))).toMatch(/shop\s+1\/2\s+CrashLoopBackOff\s+7\s+\d+[smhd]/);
      expect(api.requests.find((r) => r.path === '/api/v1/namespaces/shop/pods')?.query).toEqual({ limit: '50' });
    });

    it('understands kinds, plurals, short names and plural.group', async () => {
      for (const kind of ['Deployment', 'deployments', 'deploy', 'deployment', 'deployments.apps', 'deployments.v1.apps']) {
        const result = await call('list_resources', { kind });
        expect(result.isError, kind).toBeFalsy();
        expect(data(result).apiVersion).toBe('apps/v1');
      }
      const unknown = await call('list_resources', { kind: 'widgets' });
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('unknown kind "widgets"');
      expect(text(unknown)).toContain('list_api_resources');
      expect(text(unknown)).toContain('metrics.k8s.io/v1beta1');
    });

    it('lists deployments in every namespace with replica readiness', async () => {
      const result = await call('list_resources', { kind: 'deploy', allNamespaces: true });
      const d = data(result);
      expect(d.scope).toBe('all-namespaces');
      expect(d.namespace).toBeUndefined();
      expect(d.items.map((r: any) => [r.namespace, r.name, r.ready, r.status])).toEqual([
        ['shop', 'checkout', '1/2', 'Unavailable'],
        ['shop', 'cart', '0/1', 'Unavailable'],
        ['kube-system', 'coredns', '1/1', 'Available'],
      ]);
      expect(api.requests.some((r) => r.path === '/apis/apps/v1/deployments')).toBe(true);
      const star = await call('list_resources', { kind: 'deploy', namespace: '*' });
      expect(data(star).count).toBe(3);
    });

    it('lists cluster-scoped kinds without a namespace', async () => {
      const result = await call('list_resources', { kind: 'no', namespace: 'shop' });
      expect(data(result)).toMatchObject({ scope: 'cluster', count: 2 });
      expect(data(result).items.map((r: any) => [r.name, r.status])).toEqual([
        ['kind-control-plane', 'Ready'],
        ['kind-worker', 'NotReady,SchedulingDisabled'],
      ]);
      expect(text(result).split('\n')[1]).toMatch(/^NAME\s+STATUS\s+AGE$/);
      expect(api.requests.some((r) => r.path === '/api/v1/nodes')).toBe(true);
    });

    it('passes label and field selectors through', async () => {
      const byLabel = await call('list_resources', { kind: 'pods', labelSelector: 'app=checkout' });
      expect(data(byLabel).items.map((r: any) => r.name)).toEqual(['checkout-7d9c6b5f4-x2x9k', 'checkout-7d9c6b5f4-qzr8m']);
      const byField = await call('list_resources', { kind: 'pods', allNamespaces: true, fieldSelector: 'status.phase!=Running' });
      expect(data(byField).items.map((r: any) => r.name)).toEqual(['cart-5b8f7c9d6-lm4pq', 'db-migrate-28401230-abcde']);
      const none = await call('list_resources', { kind: 'pods', labelSelector: 'app=nothing' });
      expect(data(none).count).toBe(0);
      expect(text(none)).toContain('No pods found in namespace "shop" matching the selectors');
      const bad = await call('list_resources', { kind: 'pods', fieldSelector: 'status.phase' });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain('refused the request');
      expect(text(bad)).toContain('check the labelSelector and fieldSelector syntax');
    });

    it('flags a listing cut at the limit and says how to narrow it', async () => {
      const result = await call('list_resources', { kind: 'pods', limit: 2 });
      expect(data(result)).toMatchObject({ count: 2, truncated: true, remaining: 2 });
      expect(data(result).hint).toContain('Narrow with labelSelector');
      expect(text(result)).toContain('2 more match');
      expect(text(result).split('\n')[0]).toMatch(/: 2\+$/);
    });

    it('caps limit at 500', async () => {
      const result = await call('list_resources', { kind: 'pods', limit: 5_000 });
      expect(result.isError).toBeFalsy();
      expect(api.requests.find((r) => r.path === '/api/v1/namespaces/shop/pods')?.query.limit).toBe('500');
      expect(text(result)).toContain('limit 5000 was lowered to the maximum of 500');
      const invalid = await call('list_resources', { kind: 'pods', limit: 0 });
      expect(invalid.isError).toBe(true);
    });

    it('counts an over-long page as truncated when the server ignores limit', async () => {
      const many = Array.from({ length: 60 }, (_, i) => ({ metadata: { name: `p-${i}`, namespace: 'shop', creationTimestamp: '2026-11-25T11:00:00Z' }, status: { phase: 'Running' } }));
      api.override('/api/v1/namespaces/shop/pods', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: many }));
      });
      const result = await call('list_resources', { kind: 'pods' });
      expect(data(result)).toMatchObject({ count: 50, truncated: true });
    });
  });

  describe('get_resource', () => {
    it('shows an object as YAML without managedFields', async () => {
      const result = await call('get_resource', { kind: 'deploy', name: 'checkout' });
      expect(result.isError).toBeFalsy();
      const d = data(result);
      expect(d).toMatchObject({ cluster: 'prod-eu', kind: 'Deployment', apiVersion: 'apps/v1', name: 'checkout', namespace: 'shop', truncated: false });
      expect(text(result)).toBe(d.yaml);
      const obj = parse(d.yaml);
      expect(obj.kind).toBe('Deployment');
      expect(obj.metadata.managedFields).toBeUndefined();
      expect(obj.metadata.uid).toBe('e4d3c2b1-a0f9-4e8d-b7c6-a5f4e3d2c1b0');
      expect(obj.spec.replicas).toBe(2);
      expect(obj.status.conditions[0].reason).toBe('MinimumReplicasUnavailable');
      expect(d.yaml).not.toContain('managedFields');
      const original = fixture('deployments.json').items[0];
      expect(original.metadata.managedFields.length).toBeGreaterThan(0);
    });

    it('reads cluster-scoped objects', async () => {
      const result = await call('get_resource', { kind: 'node', name: 'kind-worker' });
      expect(data(result).namespace).toBeUndefined();
      expect(parse(data(result).yaml).spec.unschedulable).toBe(true);
      expect(api.requests.some((r) => r.path === '/api/v1/nodes/kind-worker')).toBe(true);
    });

    it('redacts Secret values, including the last-applied manifest', async () => {
      const result = await call('get_resource', { kind: 'secret', name: 'checkout-db' });
      expect(result.isError).toBeFalsy();
      const obj = parse(data(result).yaml);
      expect(obj.data).toEqual({ password: '<redacted>', username: '<redacted>' });
      expect(obj.type).toBe('Opaque');
      expect(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toBe('<redacted>');
      const everything = JSON.stringify(result);
      for (const secret of ['czNjcjN0LXA0c3N3MHJk', 'Y2hlY2tvdXQ=', 's3cr3t-p4ssw0rd']) expect(everything).not.toContain(secret);
    });

    it('redacts stringData too', async () => {
      api.override('/api/v1/namespaces/shop/secrets/pending', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Secret', apiVersion: 'v1', metadata: { name: 'pending', namespace: 'shop' }, stringData: { token: 'plain-text-token' }, type: 'Opaque' }));
      });
      const result = await call('get_resource', { kind: 'secrets', name: 'pending' });
      expect(parse(data(result).yaml).stringData).toEqual({ token: '<redacted>' });
      expect(JSON.stringify(result)).not.toContain('plain-text-token');
    });

    it('explains a 404 and how to find the right name', async () => {
      const result = await call('get_resource', { kind: 'po', name: 'checkout-0' });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        'Pod "checkout-0" not found in namespace "shop" on cluster "prod-eu"; list them with list_resources {"kind": "pods", "namespace": "shop"} or look in every namespace with "allNamespaces": true',
      );
    });

    it('cuts very large objects', async () => {
      api.override('/api/v1/namespaces/shop/configmaps/big', (_req, res) => {
        const data = Object.fromEntries(Array.from({ length: 4_000 }, (_, i) => [`key-${i}`, 'x'.repeat(60)]));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'big', namespace: 'shop' }, data }));
      });
      const result = await call('get_resource', { kind: 'cm', name: 'big' });
      expect(data(result).truncated).toBe(true);
      expect(Buffer.byteLength(data(result).yaml)).toBeLessThanOrEqual(128 * 1024 + 100);
      expect(data(result).yaml).toMatch(/# \.\.\. truncated: \d+ more bytes of YAML not shown\n$/);
    });
  });

  describe('list_events', () => {
    it('lists events of the namespace newest first', async () => {
      const result = await call('list_events', {});
      expect(result.isError).toBeFalsy();
      const d = data(result);
      expect(d).toMatchObject({ cluster: 'prod-eu', scope: 'namespace', namespace: 'shop', count: 6, scanned: 6, truncated: false });
      expect(d.events.map((e: any) => e.lastSeen)).toEqual([
        '2026-11-25T11:40:12Z',
        '2026-11-25T11:39:30Z',
        '2026-11-25T11:38:51Z',
        '2026-11-25T11:31:39Z',
        '2026-11-25T11:02:36Z',
        '2026-11-25T10:02:08.312518Z',
      ]);
      expect(d.events[0]).toMatchObject({ type: 'Warning', reason: 'BackOff', object: 'Pod/checkout-7d9c6b5f4-qzr8m', count: 41, namespace: 'shop' });
      expect(text(result).split('\n')[1]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+COUNT\s+MESSAGE$/);
    });

    it('narrows to one object and type, resolving short kinds', async () => {
      const result = await call('list_events', { involvedObjectKind: 'po', involvedObjectName: 'cart-5b8f7c9d6-lm4pq', type: 'Warning' });
      expect(data(result).events.map((e: any) => e.reason)).toEqual(['Failed']);
      expect(api.requests.find((r) => r.path === '/api/v1/namespaces/shop/events')?.query.fieldSelector).toBe(
        'involvedObject.kind=Pod,involvedObject.name=cart-5b8f7c9d6-lm4pq,type=Warning',
      );
    });

    it('lists every namespace and cuts at the limit', async () => {
      const result = await call('list_events', { allNamespaces: true, limit: 2 });
      expect(data(result)).toMatchObject({ scope: 'all-namespaces', count: 2, scanned: 7, truncated: true });
      expect(text(result)).toContain('5 older events not shown');
      expect(text(result).split('\n')[1]).toMatch(/^LAST SEEN\s+NAMESPACE\s+TYPE/);
      const warnings = await call('list_events', { allNamespaces: true, type: 'Warning' });
      expect(data(warnings).events.map((e: any) => e.namespace)).toEqual(['shop', 'shop', 'kube-system']);
    });

    it('pages through events with continue before sorting', async () => {
      const page = (i: number) => ({
        metadata: { name: `e${i}`, namespace: 'shop' },
        involvedObject: { kind: 'Pod', name: 'p' },
        reason: 'R',
        message: `m${i}`,
        type: 'Normal',
        lastTimestamp: new Date(Date.UTC(2026, 10, 25, 0, 0, i)).toISOString(),
        count: 1,
      });
      api.override('/api/v1/namespaces/shop/events', (_req, res, url) => {
        const second = url.searchParams.get('continue') === 'next';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'EventList', apiVersion: 'v1', metadata: second ? {} : { continue: 'next' }, items: second ? [page(30)] : [page(10), page(5)] }));
      });
      const result = await call('list_events', { limit: 1 });
      expect(data(result).events[0].message).toBe('m30');
      expect(data(result).scanned).toBe(3);
    });
  });

  describe('pod_logs', () => {
    it('asks for a container when the pod has several', async () => {
      const result = await call('pod_logs', { pod: 'checkout-7d9c6b5f4-x2x9k' });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('a container name must be specified for pod checkout-7d9c6b5f4-x2x9k, choose one of: [app log-shipper]');
      expect(text(result)).toContain('pass container');
    });

    it('reads the newest lines of a container', async () => {
      const result = await call('pod_logs', { pod: 'checkout-7d9c6b5f4-x2x9k', container: 'app' });
      expect(result.isError).toBeFalsy();
      const d = data(result);
      expect(d).toMatchObject({ cluster: 'prod-eu', namespace: 'shop', pod: 'checkout-7d9c6b5f4-x2x9k', container: 'app', previous: false, lines: 30, truncated: false });
      expect(d.logs.split('\n')[0]).toContain('server listening');
      expect(text(result).split('\n')[0]).toBe('# 30 lines of logs of pod "checkout-7d9c6b5f4-x2x9k" container "app" in namespace "shop" on cluster "prod-eu"');
      expect(api.requests.at(-1)?.query).toEqual({ container: 'app', tailLines: '200' });

      const tail = await call('pod_logs', { pod: 'checkout-7d9c6b5f4-x2x9k', container: 'app', tailLines: 5, sinceSeconds: 600, timestamps: true });
      expect(data(tail).lines).toBe(5);
      expect(api.requests.at(-1)?.query).toEqual({ container: 'app', tailLines: '5', sinceSeconds: '600', timestamps: 'true' });
    });

    it('reads the previous instance of a crashing container', async () => {
      const result = await call('pod_logs', { namespace: 'shop', pod: 'checkout-7d9c6b5f4-qzr8m', container: 'app', previous: true });
      expect(result.isError).toBeFalsy();
      expect(data(result).previous).toBe(true);
      expect(data(result).logs).toContain('panic: database unavailable after 3 attempts');
      const never = await call('pod_logs', { pod: 'checkout-7d9c6b5f4-x2x9k', container: 'app', previous: true });
      expect(never.isError).toBe(true);
      expect(text(never)).toContain('previous terminated container "app"');
      expect(text(never)).toContain('retry without previous');
    });

    it('explains a pod that does not exist', async () => {
      const result = await call('pod_logs', { pod: 'checkout-gone', namespace: 'shop' });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('pod "checkout-gone" not found in namespace "shop" on cluster "prod-eu"; list pods with list_resources {"kind": "pods", "namespace": "shop"}');
    });

    it('keeps the newest 64 KiB of long logs, whole lines only', async () => {
      const lines = Array.from({ length: 3_000 }, (_, i) => `line ${String(i).padStart(5, '0')} ${'y'.repeat(90)}`);
      api.setLog('shop', 'cart-5b8f7c9d6-lm4pq', 'app', `${lines.join('\n')}\n`);
      const result = await call('pod_logs', { pod: 'cart-5b8f7c9d6-lm4pq', tailLines: 2_000 });
      const d = data(result);
      expect(d.truncated).toBe(true);
      expect(d.bytes).toBe(2_000 * 102);
      expect(Buffer.byteLength(d.logs)).toBeLessThanOrEqual(64 * 1024);
      expect(d.logs).toMatch(/^line \d{5} y+\n/);
      expect(d.logs.endsWith(`${lines.at(-1)}\n`)).toBe(true);
      expect(d.lines).toBe(d.logs.trimEnd().split('\n').length);
      expect(text(result)).toContain('Older lines were dropped');
    });

    it('caps tailLines at 2000', async () => {
      await call('pod_logs', { pod: 'cart-5b8f7c9d6-lm4pq', tailLines: 100_000 });
      expect(api.requests.at(-1)?.query.tailLines).toBe('2000');
    });

    it('says when there are no lines', async () => {
      const result = await call('pod_logs', { pod: 'cart-5b8f7c9d6-lm4pq' });
      expect(data(result)).toMatchObject({ lines: 0, logs: '', truncated: false });
      expect(text(result)).toContain('No log lines');
    });
  });

  describe('failures', () => {
    it('explains rejected credentials', async () => {
      const kubeconfig = api.kubeconfig([{ name: 'prod-eu', token: 'expired-token' }]);
      const result = await call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': 'prod-eu' }, { integration: record(kubeconfig) }));
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('401 Unauthorized');
      expect(text(result)).toContain('update the kube integration');
    });

    it('explains a forbidden request', async () => {
      api.override('/api/v1/namespaces/kube-system/secrets', (_req, res) => {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            status(403, 'Forbidden', 'secrets is forbidden: User "system:serviceaccount:sluice:reader" cannot list resource "secrets" in API group "" in the namespace "kube-system"', {
              kind: 'secrets',
            }),
          ),
        );
      });
      const result = await call('list_resources', { kind: 'secrets', namespace: 'kube-system' });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('forbidden on cluster "prod-eu": secrets is forbidden');
      expect(text(result)).toContain('RBAC');
    });

    it('explains an unreachable cluster', async () => {
      const kubeconfig = api.kubeconfig([{ name: 'gone', server: 'http://127.0.0.1:9' }]);
      const result = await call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': 'gone' }, { integration: record(kubeconfig) }));
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('cannot reach cluster "gone" at http://127.0.0.1:9 (ECONNREFUSED)');
    });

    it('requires insecure-skip-tls-verify to send credentials over plain http', async () => {
      const kubeconfig = api.kubeconfig().replaceAll('insecure-skip-tls-verify: true', 'insecure-skip-tls-verify: false');
      const result = await call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': 'prod-eu' }, { integration: record(kubeconfig) }));
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('plain http');
      expect(api.requests).toHaveLength(0);
    });

    it('gives up on a hanging cluster within the timeout', async () => {
      const quick = kubeDriver({ timeoutMs: 300 });
      api.hang('/api/v1/namespaces/shop/pods');
      const started = Date.now();
      const result = await call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': 'prod-eu' }), quick);
      const elapsed = Date.now() - started;
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^timeout: cluster "prod-eu" \(http:\/\/127\.0\.0\.1:\d+\) did not answer \/api\/v1\/namespaces\/shop\/pods within 0\.3s/);
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(1_500);
    });

    it('gives up on hanging discovery within the timeout', async () => {
      const quick = kubeDriver({ timeoutMs: 300 });
      api.hang(/^\/api(\/v1)?$/);
      const started = Date.now();
      const result = await call('get_resource', { kind: 'pods', name: 'x' }, context({ 'x-kube-cluster': 'prod-eu' }), quick);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^timeout: /);
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('stops when the caller goes away', async () => {
      api.hang('/api/v1/namespaces/shop/pods');
      const caller = new AbortController();
      const pending = call('list_resources', { kind: 'pods' }, context({ 'x-kube-cluster': 'prod-eu' }, { signal: caller.signal }));
      setTimeout(() => caller.abort(new Error('client went away')), 100);
      const started = Date.now();
      const result = await pending;
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('cancelled');
      expect(Date.now() - started).toBeLessThan(1_000);
    });
  });
});
