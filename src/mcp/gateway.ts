import type { IntegrationRecord, MetaStore } from '../meta/types.js';
import type { Driver } from './driver.js';

/** DriverState is one driver as one org sees it: its stored record, if any, and whether it is active. */
export interface DriverState {
  driver: Driver;
  record: IntegrationRecord | undefined;
  /**
   * active drivers appear in discovery and answer tool calls; an inactive one (disabled, or
   * never configured) still answers, with empty results, as the spec asks.
   */
  active: boolean;
}

/**
 * ToolGateway knows every driver this installation can serve and decides, per org, which are
 * active: drivers on by default (telemetry, common) unless the org disabled them, and the
 * others once the org configured and enabled them. It reads the metadata store on every call,
 * so an `integrations` change made with the CLI applies to the next request.
 */
export class ToolGateway {
  private readonly drivers = new Map<string, Driver>();

  constructor(
    private readonly store: MetaStore,
    drivers: readonly Driver[],
  ) {
    for (const driver of drivers) {
      if (this.drivers.has(driver.name)) throw new Error(`duplicate tool gateway driver ${driver.name}`);
      this.drivers.set(driver.name, driver);
    }
  }

  /** names lists every driver this installation offers, in registration order. */
  names(): string[] {
    return [...this.drivers.keys()];
  }

  driver(name: string): Driver | undefined {
    return this.drivers.get(name);
  }

  /** state resolves one driver for one org; undefined when no driver has that name. */
  async state(orgId: string, name: string): Promise<DriverState | undefined> {
    const driver = this.drivers.get(name);
    if (!driver) return undefined;
    const record = (await this.store.listIntegrations({ orgId })).find((r) => r.driver === name);
    return { driver, record, active: isActive(driver, record) };
  }

  /** active lists the drivers active for an org, in registration order. */
  async active(orgId: string): Promise<DriverState[]> {
    const records = new Map((await this.store.listIntegrations({ orgId })).map((r) => [r.driver, r]));
    const out: DriverState[] = [];
    for (const driver of this.drivers.values()) {
      const record = records.get(driver.name);
      if (isActive(driver, record)) out.push({ driver, record, active: true });
    }
    return out;
  }
}

function isActive(driver: Driver, record: IntegrationRecord | undefined): boolean {
  if (!record) return driver.enabledByDefault;
  return record.enabled && driver.configured(record);
}
