import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SETTINGS, loadConfig } from '../../src/config.js';
import { INGEST_PATHS } from '../../src/routes/ingest.js';
import { ROLES, ROLE_TABLE, isRole, type Role } from '../../src/roles/roles.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { unknownFields } from './unknownFields.js';

/**
 * Every YAML document under k8s/ is checked twice: against the Kubernetes OpenAPI schemas
 * (kubernetes-models validates each object with the schemas of its apiVersion and kind, as
 * `kubectl apply --dry-run` would before field validation), and against what the schemas cannot
 * know: that the manifests speak to this Sluice (settings, roles, probe routes) and hang
 * together (selectors, ports, references). A directory is one layout: `k8s/` holds the single
 * node manifest, `k8s/scaled/` the scaled-out one (applied with `kubectl apply -k`).
 *
 *   npx vitest run test/k8s/manifests.test.ts
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const K8S = path.join(ROOT, 'k8s');

const KNOWN_SETTINGS = new Set(SETTINGS.map((s) => s.env));

// Parsed YAML is untyped; each check reads the fields it needs.
type Obj = Record<string, any>;
interface Manifest {
  file: string;
  layout: string;
  obj: Obj;
}

/** MODELS are the kinds the layouts may use, each validated by its kubernetes-models class. */
const MODELS: Record<string, new (data: Obj) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
};
const KUSTOMIZATION = 'kustomize.config.k8s.io/v1beta1/Kustomization';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? yamlFiles(path.join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(dir, e.name)] : []))
    .sort();
}

function loadManifests(): Manifest[] {
  const out: Manifest[] = [];
  for (const file of yamlFiles(K8S)) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      expect(doc.errors.map((e) => e.message), file).toEqual([]);
      const obj = doc.toJS() as Obj | null;
      if (obj !== null) out.push({ file: path.relative(ROOT, file), layout: path.relative(ROOT, path.dirname(file)), obj });
    }
  }
  return out;
}

const typeOf = (m: Manifest): string => `${m.obj.apiVersion}/${m.obj.kind}`;
const WORKLOADS = new Set(['apps/v1/Deployment', 'apps/v1/StatefulSet']);

/** labelsMatch says whether `selector` (matchLabels or a Service's map) selects `labels`. */
const labelsMatch = (selector: Record<string, string>, labels: Record<string, string> = {}): boolean =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

interface Container {
  name: string;
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  [probe: string]: unknown;
}

const containersOf = (w: Manifest): Container[] => w.obj.spec.template.spec.containers as Container[];

/** roleOf is the role a container runs: `--role` in its arguments, else SVC_ROLE, else all. */
function roleOf(c: Container): string {
  const args = c.args ?? [];
  const flag = args.indexOf('--role');
  if (flag >= 0) return args[flag + 1];
  return c.env?.find((e) => e.name === 'SVC_ROLE')?.value ?? 'all';
}

describe('Kubernetes manifests', () => {
  const manifests = loadManifests();
  const inLayout = (layout: string, type?: string): Manifest[] => manifests.filter((m) => m.layout === layout && (type === undefined || typeOf(m) === type));
  const layouts = [...new Set(manifests.map((m) => m.layout))];
  const workloads = manifests.filter((m) => WORKLOADS.has(typeOf(m)));
  const containers = workloads.flatMap((w) => containersOf(w).map((c) => ({ w, c })));

  it('has both layouts, each object of a known kind, valid against its OpenAPI schema', () => {
    expect(layouts.sort()).toEqual(['k8s', 'k8s/scaled']);
    for (const m of manifests) {
      const where = `${m.file}: ${m.obj.kind} ${m.obj.metadata?.name ?? ''}`;
      if (typeOf(m) === KUSTOMIZATION) continue;
      const Model = MODELS[typeOf(m)];
      expect(Model, `${where}: no schema for ${typeOf(m)}`).toBeDefined();
      expect(() => new Model(m.obj).validate(), where).not.toThrow();
    }
  });

  it('rejects a broken object, so the schema check has teeth', () => {
    const deployment = structuredClone(workloads.find((w) => typeOf(w) === 'apps/v1/Deployment')!.obj);
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    expect(() => new Deployment(deployment).validate()).toThrow(/containerPort must be integer/);
    const hpa = structuredClone(manifests.find((m) => typeOf(m) === 'autoscaling/v2/HorizontalPodAutoscaler')!.obj);
    delete hpa.spec.scaleTargetRef;
    expect(() => new HorizontalPodAutoscaler(hpa).validate()).toThrow(/scaleTargetRef/);
  });

  it('has no field its Kubernetes type does not know (a misspelt field passes the schemas)', () => {
    for (const m of manifests.filter((x) => typeOf(x) !== KUSTOMIZATION)) {
      expect(unknownFields(m.obj), `${m.file}: ${m.obj.kind} ${m.obj.metadata?.name}`).toEqual([]);
    }
    const deployment = structuredClone(workloads.find((w) => typeOf(w) === 'apps/v1/Deployment')!.obj);
    const container = deployment.spec.template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    container.ports[0].contianerPort = 8080;
    deployment.spec.template.spec.securityContext.runAsNonroot = true;
    // Schema validation lets these through; the field check does not.
    expect(() => new Deployment(deployment).validate()).not.toThrow();
    expect(unknownFields(deployment).sort()).toEqual([
      'Deployment.spec.template.spec.containers[0].ports[0].contianerPort',
      'Deployment.spec.template.spec.containers[0].readinesProbe',
      'Deployment.spec.template.spec.securityContext.runAsNonroot',
    ]);
  });

  it('lists every file of the scaled layout in its kustomization, and nothing else', () => {
    const [kustomization] = inLayout('k8s/scaled', KUSTOMIZATION);
    expect(kustomization).toBeDefined();
    const files = yamlFiles(path.join(K8S, 'scaled')).map((f) => path.basename(f)).filter((f) => f !== 'kustomization.yaml');
    expect([...(kustomization.obj.resources as string[])].sort()).toEqual(files.sort());
  });

  it('names each object once per kind and layout', () => {
    for (const layout of layouts) {
      const names = inLayout(layout).filter((m) => typeOf(m) !== KUSTOMIZATION).map((m) => `${m.obj.kind}/${m.obj.metadata.name}`);
      expect(new Set(names).size, layout).toBe(names.length);
    }
  });

  it('sets only Sluice settings the service knows', () => {
    const used = new Set<string>();
    for (const { c } of containers) for (const e of c.env ?? []) used.add(e.name);
    for (const m of manifests.filter((x) => typeOf(x) === 'v1/ConfigMap')) for (const k of Object.keys(m.obj.data ?? {})) used.add(k);
    const svc = [...used].filter((n) => n.startsWith('SVC_'));
    expect(svc.length).toBeGreaterThan(10);
    for (const name of svc) expect(KNOWN_SETTINGS.has(name), `${name} is not a setting`).toBe(true);
  });

  it('gives every container values the settings accept, and every shared backend its role needs', () => {
    for (const { w, c } of containers) {
      const where = `${w.file}: ${w.obj.metadata.name}/${c.name}`;
      const literal: Record<string, string> = {};
      const present = new Set<string>();
      for (const from of c.envFrom ?? []) {
        expect(from.configMapRef, `${where}: envFrom takes ConfigMaps only`).toBeDefined();
        const cm = inLayout(w.layout, 'v1/ConfigMap').find((m) => m.obj.metadata.name === from.configMapRef!.name);
        expect(cm, `${where}: ConfigMap ${from.configMapRef!.name}`).toBeDefined();
        for (const [k, v] of Object.entries(cm!.obj.data as Record<string, string>)) (literal[k] = v), present.add(k);
      }
      for (const e of c.env ?? []) {
        present.add(e.name);
        if (e.value !== undefined) literal[e.name] = e.value;
        const ref = e.valueFrom?.secretKeyRef as { name: string; key: string } | undefined;
        // The bootstrap key's and internal token's placeholders are refused on purpose until an operator replaces them.
        if (ref === undefined || e.name === 'SVC_BOOTSTRAP_API_KEY' || e.name === 'SVC_INTERNAL_TOKEN') continue;
        // The layout's Secrets hold example values of the right form; those go through the parsers too.
        const secret = inLayout(w.layout, 'v1/Secret').find((m) => m.obj.metadata.name === ref.name);
        const example = (secret?.obj.stringData as Record<string, string> | undefined)?.[ref.key];
        if (example !== undefined) literal[e.name] = example;
      }
      expect(() => loadConfig(literal), where).not.toThrow();
      const role = roleOf(c);
      expect(isRole(role), `${where}: role ${role}`).toBe(true);
      for (const need of ROLE_TABLE[role as Role].needs) {
        expect(literal[need.env], `${where}: role ${role} needs ${need.env}=${need.value}`).toBe(need.value);
        for (const name of need.with) expect(present.has(name), `${where}: role ${role} needs ${name}`).toBe(true);
      }
    }
  });

  it('refers only to Secrets, keys, ConfigMaps and ServiceAccounts of its own layout', () => {
    for (const { w, c } of containers) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref === undefined) continue;
        const secret = inLayout(w.layout, 'v1/Secret').find((m) => m.obj.metadata.name === ref.name);
        expect(secret, `${w.file}: Secret ${ref.name}`).toBeDefined();
        expect(Object.keys({ ...secret!.obj.stringData, ...secret!.obj.data }), `${w.file}: ${ref.name}/${ref.key}`).toContain(ref.key);
      }
    }
    for (const w of workloads) {
      const account = w.obj.spec.template.spec.serviceAccountName as string | undefined;
      if (account !== undefined) expect(inLayout(w.layout, 'v1/ServiceAccount').map((m) => m.obj.metadata.name), w.file).toContain(account);
    }
  });

  it('runs only roles the CLI accepts, labelled by role, and every role in the scaled layout', () => {
    const scaledRoles = new Set<string>();
    for (const { w, c } of containers) {
      const role = roleOf(c);
      expect(ROLES as readonly string[], `${w.file}: ${role}`).toContain(role);
      const component = w.obj.spec.template.metadata.labels['app.kubernetes.io/component'] as string | undefined;
      if (component !== undefined) expect(component, w.file).toBe(role);
      if (w.layout === 'k8s/scaled') scaledRoles.add(role);
    }
    expect([...scaledRoles].sort()).toEqual(ROLES.filter((r) => r !== 'all').sort());
    // The single-node manifest runs everything in one pod.
    expect(containers.filter(({ w }) => w.layout === 'k8s').map(({ c }) => roleOf(c))).toEqual(['all']);
  });

  it('selects its own pods: workloads, Services, PodDisruptionBudgets, autoscalers', () => {
    for (const w of workloads) {
      expect(labelsMatch(w.obj.spec.selector.matchLabels, w.obj.spec.template.metadata.labels), `${w.file}: ${w.obj.metadata.name}`).toBe(true);
    }
    for (const m of manifests) {
      const where = `${m.file}: ${m.obj.kind} ${m.obj.metadata?.name}`;
      const peers = workloads.filter((w) => w.layout === m.layout);
      if (typeOf(m) === 'v1/Service') {
        expect(peers.filter((w) => labelsMatch(m.obj.spec.selector, w.obj.spec.template.metadata.labels)).length, where).toBeGreaterThan(0);
      }
      if (typeOf(m) === 'policy/v1/PodDisruptionBudget') {
        expect(peers.filter((w) => labelsMatch(m.obj.spec.selector.matchLabels, w.obj.spec.template.metadata.labels)).length, where).toBe(1);
      }
      if (typeOf(m) === 'autoscaling/v2/HorizontalPodAutoscaler') {
        const ref = m.obj.spec.scaleTargetRef as { apiVersion: string; kind: string; name: string };
        const target = peers.find((w) => typeOf(w) === `${ref.apiVersion}/${ref.kind}` && w.obj.metadata.name === ref.name);
        expect(target, where).toBeDefined();
        expect(['ingest', 'query'], where).toContain(roleOf(containersOf(target!)[0]));
        expect(m.obj.spec.minReplicas, where).toBeGreaterThanOrEqual(2);
      }
    }
    // Ingesters are a StatefulSet behind a headless Service of the same name.
    for (const set of workloads.filter((w) => typeOf(w) === 'apps/v1/StatefulSet' && w.layout === 'k8s/scaled')) {
      const service = inLayout(set.layout, 'v1/Service').find((s) => s.obj.metadata.name === set.obj.spec.serviceName);
      expect(service?.obj.spec.clusterIP, set.file).toBe('None');
      expect(labelsMatch(service!.obj.spec.selector, set.obj.spec.template.metadata.labels)).toBe(true);
      expect(set.obj.spec.volumeClaimTemplates.length).toBeGreaterThan(0);
    }
  });

  it('points Service target ports and probe ports at ports the containers open', () => {
    const opens = (c: Container, port: string | number): boolean => (c.ports ?? []).some((p) => p.name === port || p.containerPort === port);
    for (const s of manifests.filter((m) => typeOf(m) === 'v1/Service')) {
      const pods = workloads.filter((w) => w.layout === s.layout && labelsMatch(s.obj.spec.selector, w.obj.spec.template.metadata.labels));
      for (const port of s.obj.spec.ports as Array<{ port: number; targetPort?: string | number }>) {
        for (const w of pods) {
          expect(containersOf(w).some((c) => opens(c, port.targetPort ?? port.port)), `${s.file}: ${s.obj.metadata.name} -> ${w.obj.metadata.name}`).toBe(true);
        }
      }
    }
    for (const { w, c } of containers) {
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        const get = (c[probe] as { httpGet?: { port: string | number } } | undefined)?.httpGet;
        if (get !== undefined) expect(opens(c, get.port), `${w.file}: ${probe}`).toBe(true);
      }
      expect(c.readinessProbe, `${w.file}: readiness`).toBeDefined();
      expect(c.livenessProbe, `${w.file}: liveness`).toBeDefined();
    }
  });

  it('asks for resources and runs unprivileged in the scaled layout', () => {
    for (const { w, c } of containers.filter(({ w }) => w.layout === 'k8s/scaled')) {
      const where = `${w.file}: ${w.obj.metadata.name}`;
      const resources = (c as { resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }).resources;
      expect(resources?.requests?.cpu, where).toBeDefined();
      expect(resources?.requests?.memory, where).toBeDefined();
      expect(resources?.limits?.memory, where).toBeDefined();
      expect(w.obj.spec.template.spec.securityContext.runAsNonRoot, where).toBe(true);
      expect(c.securityContext, where).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    }
  });

  it('routes the write endpoints to the ingest pods and everything else to the query pods', () => {
    const [ingress] = inLayout('k8s/scaled', 'networking.k8s.io/v1/Ingress');
    const paths = (ingress.obj.spec.rules as Array<{ http: { paths: Array<{ path: string; pathType: string; backend: { service: { name: string; port: { name: string } } } }> } }>).flatMap((r) => r.http.paths);
    const componentsBehind = (service: string): Set<string> => {
      const s = inLayout('k8s/scaled', 'v1/Service').find((m) => m.obj.metadata.name === service);
      expect(s, service).toBeDefined();
      expect((s!.obj.spec.ports as Array<{ name: string }>).map((p) => p.name)).toContain('http');
      const pods = workloads.filter((w) => w.layout === 'k8s/scaled' && labelsMatch(s!.obj.spec.selector, w.obj.spec.template.metadata.labels));
      return new Set(pods.flatMap((w) => ROLE_TABLE[roleOf(containersOf(w)[0]) as Role].components));
    };
    const writes = paths.filter((p) => p.pathType === 'Exact');
    expect(writes.map((p) => p.path).sort()).toEqual(Object.values(INGEST_PATHS).sort());
    for (const p of writes) expect(componentsBehind(p.backend.service.name).has('ingestApi'), p.path).toBe(true);
    const rest = paths.filter((p) => p.pathType !== 'Exact');
    expect(rest.map((p) => p.path)).toEqual(['/']);
    expect(componentsBehind(rest[0].backend.service.name).has('queryApi')).toBe(true);
  });

  describe('probe paths', () => {
    let srv: TestServer;
    beforeAll(async () => {
      srv = await startTestServer();
    });
    afterAll(async () => {
      await srv?.stop();
    });

    it('are routes the server answers without a key', async () => {
      const probePaths = new Set<string>();
      for (const { c } of containers) {
        for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
          const get = (c[probe] as { httpGet?: { path: string } } | undefined)?.httpGet;
          if (get !== undefined) probePaths.add(get.path);
        }
      }
      expect(probePaths).toContain('/readyz');
      for (const p of probePaths) expect((await fetch(`${srv.url}${p}`)).status, p).toBe(200);
      // The scrape annotations name a route the server answers too.
      const scraped = new Set(workloads.map((w) => w.obj.spec.template.metadata.annotations?.['prometheus.io/path']).filter((p): p is string => p !== undefined));
      for (const p of scraped) expect((await fetch(`${srv.url}${p}`)).status, p).toBe(200);
    });
  });
});
