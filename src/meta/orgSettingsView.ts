import type { Config } from '../config.js';
import { describeOrigin, resolveSettings, type EffectiveSetting, type EffectiveSettings } from './effectiveSettings.js';
import { ORG_SETTINGS, type QueryLimits, type RetentionSignal } from './orgSettings.js';
import { DAY_MS } from './retentionDays.js';
import type { MetaStore } from './types.js';

/**
 * OrgSettingsView answers "what are this org's limits?" synchronously, because ingest asks on
 * every request and the retention run for every segment. It resolves every org's settings
 * once per change of the metadata store (store.onChange, which also reports writes of another
 * process such as the CLI), so a limit changed beside a running server applies to the next
 * request, without a restart. Objects it hands out are shared until the next change: callers
 * must not modify them.
 */
export class OrgSettingsView {
  private byOrg = new Map<string, OrgEntry>();
  private readonly defaults: OrgEntry;
  private unsubscribe: (() => void) | undefined;
  private generation = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly config: Config) {
    this.defaults = entryFor(resolveSettings(undefined, config));
  }

  static async create(store: MetaStore, config: Config): Promise<OrgSettingsView> {
    const view = new OrgSettingsView(config);
    await view.rebuild(store);
    view.unsubscribe = store.onChange(() => view.refresh(store));
    return view;
  }

  /**
   * refresh reloads after a change. A failed reload (a database restarting) keeps the settings
   * last read and is retried until one succeeds, so a changed limit is not lost with it.
   */
  private refresh(store: MetaStore): void {
    clearTimeout(this.retryTimer);
    this.rebuild(store).catch(() => {
      this.retryTimer = setTimeout(() => this.refresh(store), RELOAD_RETRY_MS);
      this.retryTimer.unref();
    });
  }

  private async rebuild(store: MetaStore): Promise<void> {
    // A store that answers asynchronously (a database) may finish two reloads out of order; the
    // one started last wins, so an older read never replaces a newer one.
    const generation = ++this.generation;
    const orgs = await store.listOrgs();
    if (generation !== this.generation) return;
    const next = new Map<string, OrgEntry>();
    for (const org of orgs) next.set(org.id, entryFor(resolveSettings(org, this.config)));
    this.byOrg = next;
  }

  private entry(orgId: string): OrgEntry {
    return this.byOrg.get(orgId) ?? this.defaults;
  }

  /** settings is every value in force for the org, with its source; an unknown org gets the defaults. */
  settings(orgId: string): EffectiveSettings {
    return this.entry(orgId).settings;
  }

  /** retentionMs is how long the org's data of `signal` are kept, in milliseconds; 0 keeps them forever. */
  retentionMs(orgId: string, signal: RetentionSignal): number {
    return this.entry(orgId).retentionMs[signal];
  }

  /** retentionSetting is the setting behind the org's retention of `signal`, for messages. */
  retentionSetting(orgId: string, signal: RetentionSignal): EffectiveSetting {
    const settings = this.entry(orgId).settings;
    return signal === 'metrics' ? settings.retentionMetricsDays : settings.retentionLogsDays;
  }

  /** queryLimits are the bounds of the org's queries. */
  queryLimits(orgId: string): OrgQueryLimits {
    return this.entry(orgId).query;
  }

  close(): void {
    clearTimeout(this.retryTimer);
    this.unsubscribe?.();
  }
}

/** RELOAD_RETRY_MS is the pause before a failed reload is tried again. */
const RELOAD_RETRY_MS = 500;

/**
 * OrgQueryLimits are an org's query bounds, its retention per signal (queries read nothing
 * older) and, for messages, where each bound comes from.
 */
export interface OrgQueryLimits extends QueryLimits {
  retentionMs: Record<RetentionSignal, number>;
  /** originOf names the setting behind a bound: "this org's maxLogLimit" or "SVC_MAX_LOG_LIMIT". */
  originOf(field: keyof QueryLimits): string;
}

interface OrgEntry {
  settings: EffectiveSettings;
  retentionMs: Record<RetentionSignal, number>;
  query: OrgQueryLimits;
}

function entryFor(settings: EffectiveSettings): OrgEntry {
  const values = {} as QueryLimits;
  const origins = {} as Record<keyof QueryLimits, string>;
  for (const row of ORG_SETTINGS) {
    if (row.subsystem !== 'query') continue;
    values[row.field] = settings[row.name].value;
    origins[row.field] = describeOrigin(settings[row.name]);
  }
  const retentionMs = { metrics: settings.retentionMetricsDays.value * DAY_MS, logs: settings.retentionLogsDays.value * DAY_MS };
  return { settings, retentionMs, query: { ...values, retentionMs, originOf: (field) => origins[field] } };
}
