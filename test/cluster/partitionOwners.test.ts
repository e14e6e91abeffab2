import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalTokenProblem } from '../../src/cluster/internalToken.js';
import { PeerHeadClient } from '../../src/cluster/peerHeadClient.js';
import { loadConfig } from '../../src/config.js';
import type { PartitionOwner, PartitionOwners } from '../../src/cluster/partitionOwners.js';
import { StaticPartitionOwners } from '../../src/cluster/staticPartitionOwners.js';

/** ListedOwners answers a fixed list, as a lease table read at one moment would. */
class ListedOwners implements PartitionOwners {
  constructor(private readonly list: PartitionOwner[]) {}
  async owners(): Promise<PartitionOwner[]> {
    return this.list;
  }
  async close(): Promise<void> {}
}

describe('partition owners', () => {
  it('spreads partitions over the fixed URLs in order, leases never expiring', async () => {
    const owners = await new StaticPartitionOwners(['http://a:8080/', 'http://b:8080'], 5).owners();
    expect(owners.map((o) => [o.partition, o.baseUrl])).toEqual([
      [0, 'http://a:8080'],
      [1, 'http://b:8080'],
      [2, 'http://a:8080'],
      [3, 'http://b:8080'],
      [4, 'http://a:8080'],
    ]);
    expect(owners.every((o) => o.leaseExpiresAtMs > Date.now() + 365 * 86_400_000)).toBe(true);
    expect(() => new StaticPartitionOwners([], 4)).toThrow();
  });

  describe('a query process asking them', () => {
    let silent: ReturnType<typeof createServer>;
    let silentUrl: string;
    beforeAll(async () => {
      // A holder that accepts the connection and never answers.
      silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });

    const client = (list: PartitionOwner[], partitions: number) =>
      new PeerHeadClient({ owners: new ListedOwners(list), partitions, token: 't'.repeat(32), timeoutMs: 200, maxBytes: 1 << 20, now: () => 1000 });

    it('reports partitions whose lease expired or that nobody owns, without asking anyone', async () => {
      const heads = await client([{ partition: 0, ownerId: 'gone', baseUrl: 'http://127.0.0.1:9', leaseExpiresAtMs: 999 }], 2).fetch('org', 'logs');
      expect(heads.unavailable).toEqual(['write-log partition(s) 0,1 have no live owner']);
      expect(heads.bounds).toEqual([]);
      expect(heads.logs).toEqual([]);
    });

    it('gives up on a holder that does not answer in time and on one that refuses the connection', async () => {
      const started = Date.now();
      const heads = await client(
        [
          { partition: 0, ownerId: 'silent', baseUrl: silentUrl, leaseExpiresAtMs: 5000 },
          { partition: 1, ownerId: 'closed', baseUrl: 'http://127.0.0.1:9', leaseExpiresAtMs: 5000 },
        ],
        2,
      ).fetch('org', 'metrics');
      expect(Date.now() - started).toBeLessThan(2000);
      expect(heads.unavailable).toHaveLength(2);
      expect(heads.unavailable[0]).toBe('silent: no answer within 200 ms');
      expect(heads.unavailable[1]).toMatch(/^closed: /);
    });
  });
});

describe('the cluster-internal token', () => {
  const base = { SVC_META_STORE: 'postgres', SVC_POSTGRES_URL: 'postgres://u@localhost/db', SVC_BLOB_STORE: 's3', SVC_S3_BUCKET: 'b' };
  const TOKEN = 'a-cluster-internal-token-of-enough-entropy-7f3e9a';

  it('is required by an ingester, not by a process of role all or one trying a role alone', () => {
    expect(internalTokenProblem(loadConfig({ ...base, SVC_ROLE: 'ingester' }))).toMatch(/needs SVC_INTERNAL_TOKEN/);
    expect(internalTokenProblem(loadConfig({ ...base, SVC_ROLE: 'ingester', SVC_INTERNAL_TOKEN: TOKEN }))).toBeUndefined();
    expect(internalTokenProblem(loadConfig({ ...base, SVC_ROLE: 'ingester', SVC_ROLE_EMBEDDED: 'true' }))).toBeUndefined();
    expect(internalTokenProblem(loadConfig({ SVC_ROLE: 'all' }))).toBeUndefined();
  });

  it('goes with SVC_INGESTER_URLS and refuses placeholders', () => {
    expect(() => loadConfig({ SVC_INGESTER_URLS: 'http://ingester-0:8080' })).toThrow(/SVC_INGESTER_URLS needs SVC_INTERNAL_TOKEN/);
    expect(() => loadConfig({ SVC_INGESTER_URLS: 'ingester-0:8080', SVC_INTERNAL_TOKEN: TOKEN })).toThrow(/http:\/\/ or https:\/\//);
    expect(() => loadConfig({ SVC_INTERNAL_TOKEN: 'replace-me-with-32-or-more-random-characters' })).toThrow(/SVC_INTERNAL_TOKEN/);
    expect(loadConfig({ SVC_INGESTER_URLS: 'http://a:8080, http://b:8080/', SVC_INTERNAL_TOKEN: TOKEN }).ingesterUrls).toEqual(['http://a:8080', 'http://b:8080/']);
  });
});
