import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedPartitionOwners } from '../../src/cluster/cachedPartitionOwners.js';
import { PartitionLeases } from '../../src/cluster/partitionLeases.js';
import type { PartitionOwner, PartitionOwners } from '../../src/cluster/partitionOwners.js';
import { PeerHeadClient } from '../../src/cluster/peerHeadClient.js';
import { PostgresPartitionOwners } from '../../src/cluster/postgresPartitionOwners.js';
import { PostgresDatabase } from '../../src/postgres/database.js';
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.js';

const LEASE_MS = 60_000;

/** CountedReads passes reads through to the lease table and counts them. */
class CountedReads implements PartitionOwners {
  reads = 0;
  constructor(private readonly source: PartitionOwners) {}
  owners(): Promise<PartitionOwner[]> {
    this.reads++;
    return this.source.owners();
  }
  async close(): Promise<void> {}
}

/**
 * A query process's kept read of the partition leases, against a real PostgreSQL: it is reused
 * for its maximum age, read afresh after it or after a refresh, and a head fetch that fails on
 * a kept read reads the leases again and asks the new holder in the same fetch.
 */
describe.runIf(postgresAvailable('the cached partition owners test'))('partition owners kept between head fetches', () => {
  let pg: TestPostgres;
  let db: PostgresDatabase;
  let holder: Server;
  let holderUrl: string;
  const asked: string[] = [];

  beforeAll(async () => {
    pg = await startTestPostgres();
    db = await PostgresDatabase.open({ url: pg.url(await pg.createDatabase('owners_cache')), poolSize: 4, statementTimeoutMs: 5000 });
    // A holder that records who asked it and answers 503, as a process still starting does.
    holder = createServer((req, res) => {
      asked.push(req.url ?? '');
      req.resume();
      req.on('end', () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":503,"code":"SERVICE_UNAVAILABLE","message":"starting"}'));
    });
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    holderUrl = `http://127.0.0.1:${(holder.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    holder?.closeAllConnections();
    await new Promise((resolve) => holder?.close(resolve));
    await db?.close();
    await pg?.close();
  });

  it('reuses one read for its maximum age, and reads again after it or after a refresh', async () => {
    const catalog = 'kept';
    const a = new PartitionLeases(db, { catalog, leaseMs: LEASE_MS, partitions: 2, ownerId: 'a', baseUrl: 'http://a:8080' });
    const b = new PartitionLeases(db, { catalog, leaseMs: LEASE_MS, partitions: 2, ownerId: 'b', baseUrl: 'http://b:8080' });
    await a.init();
    expect(await a.take(2)).toEqual([0, 1]);
    let now = 1_000;
    const counted = new CountedReads(new PostgresPartitionOwners(db, catalog));
    const kept = new CachedPartitionOwners(counted, 500, () => now);

    // Concurrent reads share one query.
    const first = await Promise.all([kept.owners(), kept.owners(), kept.owners()]);
    expect(counted.reads).toBe(1);
    expect(first[0].map((o) => o.ownerId)).toEqual(['a', 'a']);
    expect(first[1]).toBe(first[0]);

    // a hands partition 1 to b; within the maximum age the kept read still names a.
    await a.release([1]);
    expect(await b.take(1)).toEqual([1]);
    now += 499;
    expect((await kept.owners()).map((o) => o.ownerId)).toEqual(['a', 'a']);
    expect(counted.reads).toBe(1);
    now += 1;
    expect((await kept.owners()).map((o) => o.ownerId)).toEqual(['a', 'b']);
    expect(counted.reads).toBe(2);

    // A refresh makes the next read ask at once.
    await b.release([1]);
    expect(await a.take(1)).toEqual([1]);
    expect((await kept.owners()).map((o) => o.ownerId)).toEqual(['a', 'b']);
    kept.refresh();
    const renewed = await kept.owners();
    expect(renewed.map((o) => o.ownerId)).toEqual(['a', 'a']);
    expect(counted.reads).toBe(3);

    // Within the maximum age, but at the first kept lease's expiry, the leases are read again.
    now = Math.min(...renewed.map((o) => o.leaseExpiresAtMs)) - 1;
    const kept2 = new CachedPartitionOwners(counted, 60_000, () => now);
    await kept2.owners();
    await kept2.owners();
    expect(counted.reads).toBe(4);
    now += 1;
    await kept2.owners();
    expect(counted.reads).toBe(5);
  });

  it('asks the new holder in the same head fetch when the kept read named one that no longer answers', async () => {
    const catalog = 'moved';
    const gone = new PartitionLeases(db, { catalog, leaseMs: LEASE_MS, partitions: 1, ownerId: 'gone', baseUrl: 'http://127.0.0.1:9' });
    const next = new PartitionLeases(db, { catalog, leaseMs: LEASE_MS, partitions: 1, ownerId: 'next', baseUrl: holderUrl });
    await gone.init();
    expect(await gone.take(1)).toEqual([0]);
    const counted = new CountedReads(new PostgresPartitionOwners(db, catalog));
    const client = new PeerHeadClient({ owners: new CachedPartitionOwners(counted, 60_000), partitions: 1, token: 't'.repeat(32), timeoutMs: 2000, maxBytes: 1 << 20 });

    // The first fetch reads the leases, finds the holder down, reads again: nothing moved, so it is not asked twice.
    const before = await client.fetch('org', 'logs');
    expect(before.unavailable).toHaveLength(1);
    expect(before.unavailable[0]).toMatch(/^gone: /);
    expect(counted.reads).toBe(2);

    // The partition moves; the client's kept read (fresh for a minute) still names the old holder.
    await gone.release([0]);
    expect(await next.take(1)).toEqual([0]);
    const moved = await client.fetch('org', 'logs');
    // It tried the old holder, read the leases again and asked the new one, in one fetch.
    expect(counted.reads).toBe(3);
    expect(asked).toEqual(['/internal/v1/head']);
    expect(moved.unavailable).toEqual([expect.stringMatching(/^next: answered 503/)]);
  });
});
