import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { advertiseUrl, logPartitionsOf, needsWriteLog, scaledOut } from '../../src/cluster/clusterParts.js';
import { roleBackendProblem } from '../../src/roles/backendCheck.js';

/** Every shared backend selected, as a scaled-out process has them. */
const SHARED = {
  SVC_META_STORE: 'postgres',
  SVC_POSTGRES_URL: 'postgres://sluice@db:5432/sluice',
  SVC_WRITE_LOG: 'jetstream',
  SVC_NATS_URLS: 'nats://nats:4222',
  SVC_BLOB_STORE: 's3',
  SVC_S3_BUCKET: 'segments',
};

describe('cluster settings and role wiring', () => {
  it('reads the lease, lock and advertise settings with their defaults', () => {
    const c = loadConfig({});
    expect([c.advertiseUrl, c.partitionLeaseMs, c.compactorLockRetryMs]).toEqual([undefined, 10_000, 5000]);
    expect(advertiseUrl(c, 8081)).toBe(`http://${os.hostname()}:8081`);
    const set = loadConfig({ SVC_ADVERTISE_URL: 'http://ingester-0.sluice-ingester.obs.svc:8080/', SVC_PARTITION_LEASE_MS: '1500', SVC_COMPACTOR_LOCK_RETRY_MS: '300' });
    expect([set.advertiseUrl, set.partitionLeaseMs, set.compactorLockRetryMs]).toEqual(['http://ingester-0.sluice-ingester.obs.svc:8080', 1500, 300]);
    expect(advertiseUrl(set, 8081)).toBe('http://ingester-0.sluice-ingester.obs.svc:8080');
  });

  it.each([
    ['SVC_ADVERTISE_URL', 'ftp://ingester-0:8080'],
    ['SVC_ADVERTISE_URL', 'ingester-0:8080 extra'],
    ['SVC_PARTITION_LEASE_MS', '10'],
    ['SVC_COMPACTOR_LOCK_RETRY_MS', 'soon'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('starts ingest, ingester and compactor over the shared backends without SVC_ROLE_EMBEDDED, each with only the write log part it needs', () => {
    const cases = [
      ['ingest', 'none', true],
      ['ingester', 'assigned', true],
      ['compactor', undefined, false],
      ['query', undefined, false],
    ] as const;
    for (const [role, partitions, log] of cases) {
      const c = loadConfig({ ...SHARED, SVC_ROLE: role });
      expect(roleBackendProblem(c), role).toBeUndefined();
      expect(scaledOut(c), role).toBe(true);
      expect(logPartitionsOf(c), role).toBe(partitions);
      expect(needsWriteLog(c), role).toBe(log);
    }
    // One process, or a role tried alone: the storage reads every partition as before.
    for (const env of [{ ...SHARED }, { SVC_ROLE: 'ingester', SVC_ROLE_EMBEDDED: 'true' }]) {
      const c = loadConfig(env);
      expect(scaledOut(c)).toBe(false);
      expect(logPartitionsOf(c)).toBeUndefined();
      expect(needsWriteLog(c)).toBe(true);
    }
  });
});
