import { timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord, MetaStore } from '../meta/types.js';
import { hashApiKey } from './apiKeys.js';

/** Principal is who a request acts as: one org's key, or the system key with cross-org access. */
export type Principal =
  | { kind: 'org'; orgId: string; keyId: string }
  | { kind: 'system' };

/**
 * KeyIndex answers "which key is this?" synchronously on the request path. It holds the live
 * (unrevoked) keys by a short prefix of their hash and confirms a candidate by comparing the
 * full 32-byte hashes in constant time, so response timing reveals nothing about stored keys.
 * It rebuilds itself whenever the metadata store reports a change, which is how a revocation
 * made with the CLI reaches a running server.
 */
export class KeyIndex {
  private byPrefix = new Map<string, Array<{ hash: Buffer; record: ApiKeyRecord }>>();
  private readonly systemKeyHash: Buffer | undefined;
  private unsubscribe: (() => void) | undefined;
  private generation = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  private constructor(systemKey: string | undefined) {
    this.systemKeyHash = systemKey === undefined ? undefined : hashApiKey(systemKey);
  }

  static async create(store: MetaStore, systemKey: string | undefined): Promise<KeyIndex> {
    const index = new KeyIndex(systemKey);
    await index.rebuild(store);
    index.unsubscribe = store.onChange(() => index.refresh(store));
    return index;
  }

  /**
   * refresh rebuilds after a change. A store backed by a database can fail a read (it is
   * restarting); the rebuild is then retried until one succeeds, since a revocation the index
   * missed would otherwise keep a revoked key working until the next change.
   */
  private refresh(store: MetaStore): void {
    clearTimeout(this.retryTimer);
    this.rebuild(store).catch(() => {
      this.retryTimer = setTimeout(() => this.refresh(store), REBUILD_RETRY_MS);
      this.retryTimer.unref();
    });
  }

  private async rebuild(store: MetaStore): Promise<void> {
    // Reads of a database may finish out of order; only the one started last is kept.
    const generation = ++this.generation;
    const records = await store.listApiKeys();
    if (generation !== this.generation) return;
    const next = new Map<string, Array<{ hash: Buffer; record: ApiKeyRecord }>>();
    for (const record of records) {
      if (record.revokedAt) continue;
      const bucket = record.hash.slice(0, 8);
      const list = next.get(bucket) ?? [];
      list.push({ hash: Buffer.from(record.hash, 'hex'), record });
      next.set(bucket, list);
    }
    this.byPrefix = next;
  }

  /**
   * verify returns the principal for a presented key, or undefined. `keyId`, when the client
   * named one (Authorization: ApiKey), must match the key found.
   */
  verify(presented: string, keyId?: string): Principal | undefined {
    const hash = hashApiKey(presented);
    if (this.systemKeyHash && timingSafeEqual(hash, this.systemKeyHash)) {
      // The system key is one shared secret, not a stored key, so any id presented with it is moot.
      return { kind: 'system' };
    }
    const candidates = this.byPrefix.get(hash.toString('hex', 0, 4));
    if (!candidates) return undefined;
    for (const { hash: stored, record } of candidates) {
      if (timingSafeEqual(hash, stored)) {
        if (keyId !== undefined && keyId !== record.id) return undefined;
        return { kind: 'org', orgId: record.orgId, keyId: record.id };
      }
    }
    return undefined;
  }

  close(): void {
    clearTimeout(this.retryTimer);
    this.unsubscribe?.();
  }
}

/** REBUILD_RETRY_MS is the pause before a failed rebuild is tried again. */
const REBUILD_RETRY_MS = 500;
