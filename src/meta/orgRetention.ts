import { DAY_MS, isRetentionDays } from './retentionDays.js';
import type { MetaStore } from './types.js';

/**
 * OrgRetention answers "how long are this org's data kept?" synchronously, as the storage's
 * retention run asks it for every segment. It holds the orgs' own retention settings and
 * rebuilds itself whenever the metadata store reports a change, so a retention set with the
 * CLI beside a running server applies at the next retention run, without a restart.
 */
export class OrgRetention {
  private byOrg = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  private constructor() {}

  static async create(store: MetaStore): Promise<OrgRetention> {
    const retention = new OrgRetention();
    await retention.rebuild(store);
    // A failed reload keeps the settings last read; the next change reloads again.
    retention.unsubscribe = store.onChange(() => void retention.rebuild(store).catch(() => undefined));
    return retention;
  }

  private async rebuild(store: MetaStore): Promise<void> {
    const next = new Map<string, number>();
    for (const org of await store.listOrgs()) {
      // A value that is not a valid number of days (a hand-edited document) counts as unset:
      // the service default is the safe reading, neither deleting early nor keeping forever.
      if (isRetentionDays(org.retentionDays)) next.set(org.id, org.retentionDays * DAY_MS);
    }
    this.byOrg = next;
  }

  /** retentionMs is the org's own retention in milliseconds (0: forever); undefined when the service default applies. */
  retentionMs(orgId: string): number | undefined {
    return this.byOrg.get(orgId);
  }

  close(): void {
    this.unsubscribe?.();
  }
}
