import { KeyAdmin } from '../auth/apiKeys.js';
import { describeRetention } from '../meta/retentionDays.js';
import type { MetaStore, Org } from '../meta/types.js';
import { UsageError, type Command, type OptionValues } from './command.js';
import { loadConfig } from '../config.js';
import { resolveSettings } from '../meta/effectiveSettings.js';
import { ORG_SETTING_OPTIONS, settingsChangeOf } from './orgSettingsOptions.js';
import { RETENTION_DAYS_OPTION, parseRetentionDays } from './retentionOption.js';
import { DATA_DIR_OPTION, JSON_OPTION, findOrg, print, table, withStore } from './storeCommand.js';

/** withAdmin opens the metadata store for one CLI action, with the key administration over it. */
function withAdmin<T>(values: OptionValues, fn: (admin: KeyAdmin, store: MetaStore) => Promise<T>): Promise<T> {
  return withStore(values, (store) => fn(new KeyAdmin(store), store));
}

/**
 * shownOrg is an org as the CLI prints it in JSON: `retentionDays` is always present, null
 * when the org follows the service default, so scripts need not guess what a missing key means.
 */
function shownOrg(org: Org): Omit<Org, 'retentionDays'> & { retentionDays: number | null } {
  return { ...org, retentionDays: org.retentionDays ?? null };
}

/** retentionText says in words what an org's retention setting means. */
function retentionText(org: Org): string {
  return org.retentionDays === undefined ? 'default (SVC_RETENTION_DAYS)' : describeRetention(org.retentionDays);
}

export const orgsCreate: Command = {
  name: 'orgs create',
  summary: 'Create an org. Every API key, log line, metric and dashboard belongs to one org.',
  usage: 'sluice orgs create --name NAME [--retention-days N] [--json] [--data-dir DIR]',
  options: {
    name: { type: 'string', valueName: 'NAME', description: 'Org name (unique).' },
    'retention-days': RETENTION_DAYS_OPTION,
    json: JSON_OPTION,
    'data-dir': DATA_DIR_OPTION,
  },
  run: (values) =>
    withAdmin(values, async (admin) => {
      if (typeof values.name !== 'string') throw new UsageError('--name is required');
      const retentionDays = parseRetentionDays(values['retention-days']);
      const org = await admin.createOrg(values.name, undefined, { retentionDays: retentionDays ?? undefined });
      print(values, shownOrg(org), `created org ${org.name}\n  id: ${org.id}\n  retention: ${retentionText(org)}`);
      return 0;
    }),
};

export const orgsSet: Command = {
  name: 'orgs set',
  summary:
    "Change an org's settings: its retention (for all its data, or per signal) and its ingest and query limits. 'default' returns a setting to its SVC_* default. A running server applies a change within a second (retention at its next retention run).",
  usage: 'sluice orgs set ORG [--retention-days N|default] [--retention-metrics-days N|default] [--max-series N|default] ... [--json] [--data-dir DIR]',
  options: { ...ORG_SETTING_OPTIONS, json: JSON_OPTION, 'data-dir': DATA_DIR_OPTION },
  run: (values, positionals) =>
    withAdmin(values, async (_admin, store) => {
      const ref = positionals[0];
      if (ref === undefined) throw new UsageError('the org to change is required: its id or its name');
      if (positionals.length > 1) throw new UsageError(`expected one org, got ${positionals.length}: ${positionals.join(' ')}`);
      const change = settingsChangeOf(values);
      if (Object.keys(change).length === 0) throw new UsageError('nothing to change: give a setting, such as --retention-days N or --max-series N (see --help)');
      const found = await findOrg(store, ref);
      const org = await store.updateOrgSettings(found.id, change);
      if (!org) throw new UsageError(`no org with id ${found.id}`);
      const lines = Object.entries(change).map(([name, value]) => `  ${name}: ${value === null ? 'default' : String(value)}`);
      print(values, shownOrg(org), [`updated org ${org.name}`, `  id: ${org.id}`, `  retention: ${retentionText(org)}`, ...lines].join('\n'));
      return 0;
    }),
};

export const orgsShow: Command = {
  name: 'orgs show',
  summary:
    "Show every setting in force for an org and where it comes from: the org's own value, or the service default (the SVC_* variable as this command's environment sets it).",
  usage: 'sluice orgs show ORG [--json] [--data-dir DIR]',
  options: { json: JSON_OPTION, 'data-dir': DATA_DIR_OPTION },
  run: (values, positionals) =>
    withAdmin(values, async (_admin, store) => {
      if (positionals.length !== 1) throw new UsageError('give one org to show: its id or its name');
      const org = await findOrg(store, positionals[0]);
      const settings = resolveSettings(org, loadConfig());
      const rows = Object.entries(settings).map(([name, s]) => [name, String(s.value), s.source === 'org' ? `org (${s.from})` : `default (${s.from})`]);
      print(values, { id: org.id, name: org.name, settings }, [`org ${org.name} (${org.id})`, table([['SETTING', 'VALUE', 'SOURCE'], ...rows])].join('\n'));
      return 0;
    }),
};

export const orgsList: Command = {
  name: 'orgs list',
  summary: "List orgs with their retention ('default' follows SVC_RETENTION_DAYS).",
  usage: 'sluice orgs list [--json] [--data-dir DIR]',
  options: { json: JSON_OPTION, 'data-dir': DATA_DIR_OPTION },
  run: (values) =>
    withAdmin(values, async (_admin, store) => {
      const orgs = await store.listOrgs();
      const rows = orgs.map((o) => [o.id, o.name, o.createdAt, describeRetention(o.retentionDays)]);
      print(values, orgs.map(shownOrg), table([['ID', 'NAME', 'CREATED', 'RETENTION'], ...rows]));
      return 0;
    }),
};

export const keysCreate: Command = {
  name: 'keys create',
  summary: 'Create an API key for an org. The key is printed once and only its hash is stored.',
  usage: 'sluice keys create --org ID [--name NAME] [--json] [--data-dir DIR]',
  options: {
    org: { type: 'string', valueName: 'ID', description: 'Org id the key belongs to (required).' },
    name: { type: 'string', valueName: 'NAME', description: 'A label to recognise the key by (default "default").' },
    json: JSON_OPTION,
    'data-dir': DATA_DIR_OPTION,
  },
  run: (values) =>
    withAdmin(values, async (admin) => {
      if (typeof values.org !== 'string') throw new UsageError('--org is required');
      const name = typeof values.name === 'string' ? values.name : 'default';
      const { record, key } = await admin.createKey(values.org.toLowerCase(), name);
      const { hash: _hash, ...shown } = record;
      print(
        values,
        { ...shown, key },
        `created API key ${record.id} for org ${record.orgId}\n  key: ${key}\nStore it now: it cannot be shown again.`,
      );
      return 0;
    }),
};

export const keysList: Command = {
  name: 'keys list',
  summary: 'List API keys (never their secrets).',
  usage: 'sluice keys list [--org ID] [--json] [--data-dir DIR]',
  options: {
    org: { type: 'string', valueName: 'ID', description: 'Only keys of this org.' },
    json: JSON_OPTION,
    'data-dir': DATA_DIR_OPTION,
  },
  run: (values) =>
    withAdmin(values, async (_admin, store) => {
      const keys = await store.listApiKeys(typeof values.org === 'string' ? { orgId: values.org.toLowerCase() } : {});
      const shown = keys.map(({ hash: _hash, ...rest }) => rest);
      const rows = shown.map((k) => [k.id, k.orgId, k.name, `${k.prefix}…`, k.createdAt, k.revokedAt ? `revoked ${k.revokedAt}` : 'active']);
      print(values, shown, table([['ID', 'ORG', 'NAME', 'PREFIX', 'CREATED', 'STATE'], ...rows]));
      return 0;
    }),
};

export const keysRevoke: Command = {
  name: 'keys revoke',
  summary: 'Revoke an API key. A running server rejects it within a second.',
  usage: 'sluice keys revoke KEY_ID [--json] [--data-dir DIR]',
  options: { json: JSON_OPTION, 'data-dir': DATA_DIR_OPTION },
  run: (values, positionals) =>
    withAdmin(values, async (admin) => {
      const id = positionals[0];
      if (id === undefined) throw new UsageError('the key id to revoke is required');
      const record = await admin.revokeKey(id);
      if (!record) throw new UsageError(`no API key with id ${id}`);
      const { hash: _hash, ...shown } = record;
      print(values, shown, `revoked API key ${record.id} (org ${record.orgId})`);
      return 0;
    }),
};
