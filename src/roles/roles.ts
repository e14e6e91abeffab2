/**
 * One binary runs in one of several roles (`sluice serve --role`, SVC_ROLE). ROLE_TABLE is the
 * one place that decides which parts of the service a role starts and which shared backends it
 * needs: the service wiring, the start-up check, the wrong-role answers, the readiness output
 * and the manifests test all read it, so a role never means two things in two places.
 *
 * This module imports nothing: the settings table (src/config.ts) reads ROLES from it.
 */

/** ROLES are the names `--role` and SVC_ROLE accept, `all` first (the default). */
export const ROLES = ['all', 'ingest', 'ingester', 'query', 'compactor'] as const;
export type Role = (typeof ROLES)[number];

/** Component is a part of the service that a role starts or leaves out. */
export type Component = 'ingestApi' | 'queryApi' | 'heads' | 'compaction';

/** COMPONENTS says what each component is, for help text and documentation. */
export const COMPONENTS: Record<Component, string> = {
  ingestApi: 'HTTP ingest routes: OTLP logs and metrics, Prometheus remote write, Loki push',
  queryApi:
    'query routes and everything that reads: SSE queries, validate and helper endpoints, Prometheus and Loki read APIs, Loki tail, dashboards, org settings, the tool gateway (MCP), the web UI',
  heads: 'in-memory heads fed from the write log, cut into segments in the background',
  compaction: 'the background loop that merges small segments and applies retention',
};

/**
 * BackendNeed is one shared backend a role cannot run without when it is one of several
 * processes: the setting that selects it, the value it must have, the settings that go with
 * it, and why the role needs it.
 */
export interface BackendNeed {
  env: string;
  value: string;
  with: readonly string[];
  why: string;
}

const META_STORE: BackendNeed = {
  env: 'SVC_META_STORE',
  value: 'postgres',
  with: ['SVC_POSTGRES_URL'],
  why: 'orgs, API keys, settings, dashboards and the segment catalog shared by every process',
};
const BLOB_STORE: BackendNeed = {
  env: 'SVC_BLOB_STORE',
  value: 's3',
  with: ['SVC_S3_BUCKET'],
  why: 'segment files every process reads and writes',
};
const WRITE_LOG: BackendNeed = {
  env: 'SVC_WRITE_LOG',
  value: 'jetstream',
  with: ['SVC_NATS_URLS', 'SVC_NATS_REPLICAS'],
  why: 'the replicated write log that carries acknowledged writes from ingest to the ingesters',
};

export interface RoleSpec {
  summary: string;
  components: readonly Component[];
  /** needs are the shared backends the role requires; `all` needs none (embedded is its default). */
  needs: readonly BackendNeed[];
}

export const ROLE_TABLE: Record<Role, RoleSpec> = {
  all: {
    summary: 'everything in one process (the default; embedded backends unless configured otherwise)',
    components: ['ingestApi', 'queryApi', 'heads', 'compaction'],
    needs: [],
  },
  ingest: {
    summary: 'stateless: decode and validate writes, append them to the write log, answer once it acknowledged',
    components: ['ingestApi'],
    needs: [META_STORE, WRITE_LOG],
  },
  ingester: {
    summary: 'owns write-log partitions: replays them into heads, cuts segments to object storage and records them in the catalog',
    components: ['heads'],
    needs: [META_STORE, WRITE_LOG, BLOB_STORE],
  },
  query: {
    summary: 'stateless: plans over the catalog, reads segments through the local cache and recent data from the ingesters',
    components: ['queryApi'],
    needs: [META_STORE, BLOB_STORE],
  },
  compactor: {
    summary: 'merges segments and applies retention; one leader at a time',
    components: ['compaction'],
    needs: [META_STORE, BLOB_STORE],
  },
};

/** isRole tells a role name from anything else. */
export function isRole(name: string): name is Role {
  return (ROLES as readonly string[]).includes(name);
}

/** componentsOf is the set of components `role` starts. */
export function componentsOf(role: Role): ReadonlySet<Component> {
  return new Set(ROLE_TABLE[role].components);
}

/** rolesServing lists the roles that start `component`, `all` first. */
export function rolesServing(component: Component): Role[] {
  return ROLES.filter((role) => ROLE_TABLE[role].components.includes(component));
}
