import { hash, randomBytes, randomUUID } from 'node:crypto';
import { MetaConflictError, type ApiKeyRecord, type MetaStore, type Org } from '../meta/types.js';

/**
 * API keys are 32 random bytes (256 bits) in base64url behind a recognisable `slk_` prefix,
 * so secret scanners and people can tell a Sluice key when they see one. Only the SHA-256 of a
 * key is stored: keys carry full entropy, so a slow password hash would add latency to every
 * request without adding safety.
 */
export const KEY_PREFIX = 'slk_';
const KEY_BYTES = 32;
/** PREFIX_SHOWN is how much of a key listings show; short enough to reveal nothing useful. */
const PREFIX_SHOWN = 10;

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
}

/** hashApiKey is the stored form of a key; one-shot `hash` costs about half a Hash object's round trip, on every request. */
export function hashApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** newKeyId is a short public identifier, the `id` half of `Authorization: ApiKey base64(id:key)`. */
function newKeyId(): string {
  return randomBytes(8).toString('hex');
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID_RE.test(text);
}

export interface CreatedKey {
  record: ApiKeyRecord;
  /** key is the secret itself: returned once, never stored. */
  key: string;
}

/**
 * KeyAdmin holds the org and key operations shared by the CLI and start-up bootstrap, so both
 * create keys the same way.
 */
export class KeyAdmin {
  constructor(private readonly store: MetaStore) {}

  /** createOrg creates an org; `settings.retentionDays` gives it its own retention from the start. */
  async createOrg(name: string, id: string = randomUUID(), settings: Pick<Org, 'retentionDays'> = {}): Promise<Org> {
    const trimmed = name.trim();
    if (trimmed === '') throw new Error('org name must not be empty');
    const org: Org = { id: id.toLowerCase(), name: trimmed, createdAt: new Date().toISOString() };
    if (settings.retentionDays !== undefined) org.retentionDays = settings.retentionDays;
    return this.store.createOrg(org);
  }

  /** createKey stores a new key for `orgId`; `key` lets an operator provision a known value. */
  async createKey(orgId: string, name = 'default', key: string = generateApiKey()): Promise<CreatedKey> {
    const record: ApiKeyRecord = {
      id: newKeyId(),
      orgId,
      name,
      hash: hashApiKey(key).toString('hex'),
      prefix: key.slice(0, PREFIX_SHOWN),
      createdAt: new Date().toISOString(),
    };
    await this.store.insertApiKey(record);
    return { record, key };
  }

  async revokeKey(id: string): Promise<ApiKeyRecord | undefined> {
    return this.store.revokeApiKey(id, new Date().toISOString());
  }

  /**
   * ensureOrg returns the org named by `ref` (a UUID is an id, anything else a name),
   * creating it when missing. Used for unattended deployments.
   */
  async ensureOrg(ref: string): Promise<{ org: Org; created: boolean }> {
    const orgs = await this.store.listOrgs();
    const byId = isUuid(ref);
    const found = orgs.find((o) => (byId ? o.id === ref.toLowerCase() : o.name === ref));
    if (found) return { org: found, created: false };
    try {
      const org = byId ? await this.createOrg(ref, ref) : await this.createOrg(ref);
      return { org, created: true };
    } catch (err) {
      // Replicas sharing one store start together: another may have created it a moment ago.
      const raced = err instanceof MetaConflictError ? (await this.store.listOrgs()).find((o) => (byId ? o.id === ref.toLowerCase() : o.name === ref)) : undefined;
      if (raced === undefined) throw err;
      return { org: raced, created: false };
    }
  }

  /** ensureKey makes sure `key` is a live key of `orgId`; false when it already was. */
  async ensureKey(orgId: string, key: string): Promise<boolean> {
    const hash = hashApiKey(key).toString('hex');
    const existing = (await this.store.listApiKeys()).find((k) => k.hash === hash);
    if (existing) {
      if (existing.orgId !== orgId) throw new Error('SVC_BOOTSTRAP_API_KEY already belongs to another org');
      if (existing.revokedAt) throw new Error('SVC_BOOTSTRAP_API_KEY was revoked; provision a new key');
      return false;
    }
    try {
      await this.createKey(orgId, 'bootstrap', key);
    } catch (err) {
      // Another replica stored the same key first; check it as if it had been there all along.
      if (err instanceof MetaConflictError && (await this.store.listApiKeys()).some((k) => k.hash === hash)) return this.ensureKey(orgId, key);
      throw err;
    }
    return true;
  }
}
