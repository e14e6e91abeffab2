import { readFileSync } from 'node:fs';
import { UPSTREAM_KINDS } from '../mcp/drivers/upstreamKinds.js';
import type { IntegrationRecord } from '../meta/types.js';
import { UsageError, type Command, type OptionValues } from './command.js';
import { DATA_DIR_OPTION, JSON_OPTION, findOrg, print, table, withStore } from './storeCommand.js';

/**
 * `sluice integrations ...` manages which tool gateway drivers an org has and how they reach
 * their upstream: a URL and credential headers for forwarding drivers, a kubeconfig for kube.
 * Secrets go into the metadata store and are never printed back: listings show header names
 * and whether a kubeconfig is stored, not their values. A running server applies changes to
 * its next request.
 */

/** INTEGRATION_DRIVERS are the names the gateway serves, with what each needs to become active. */
export const INTEGRATION_DRIVERS: Record<string, { defaultOn: boolean; needs: string }> = {
  telemetry: { defaultOn: true, needs: 'nothing (on by default)' },
  common: { defaultOn: true, needs: 'nothing (on by default)' },
  kube: { defaultOn: false, needs: '--kubeconfig FILE (default $KUBECONFIG)' },
  ...Object.fromEntries(UPSTREAM_KINDS.map((kind) => [kind.name, { defaultOn: false, needs: '--url of its MCP server' }])),
};

function requireDriver(name: string | undefined): string {
  if (name === undefined) throw new UsageError(`the driver is required: one of ${Object.keys(INTEGRATION_DRIVERS).join(', ')}`);
  const driver = name.toLowerCase();
  if (!(driver in INTEGRATION_DRIVERS)) throw new UsageError(`unknown driver "${name}"; known drivers: ${Object.keys(INTEGRATION_DRIVERS).join(', ')}`);
  return driver;
}

/** ShownIntegration is a record as the CLI prints it: secrets replaced by what a person needs to know about them. */
interface ShownIntegration {
  driver: string;
  enabled: boolean;
  active: boolean;
  url: string | null;
  headers: string[];
  kubeconfig: boolean;
  updatedAt: string | null;
}

/** redactUrl hides credentials in a URL (user info and query values) before it is printed. */
function redactUrl(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

function shown(driver: string, record: IntegrationRecord | undefined): ShownIntegration {
  const spec = INTEGRATION_DRIVERS[driver];
  const configured = driver === 'kube' ? record?.kubeconfig !== undefined : spec.defaultOn || record?.url !== undefined;
  const enabled = record ? record.enabled : spec.defaultOn;
  return {
    driver,
    enabled,
    active: enabled && configured,
    url: redactUrl(record?.url),
    headers: Object.keys(record?.headers ?? {}).sort(),
    kubeconfig: record?.kubeconfig !== undefined,
    updatedAt: record?.updatedAt ?? null,
  };
}

function describe(s: ShownIntegration): string {
  const state = s.active ? 'active' : s.enabled ? `enabled, needs ${INTEGRATION_DRIVERS[s.driver].needs}` : 'disabled';
  const details = [s.url ? `url ${s.url}` : '', s.headers.length > 0 ? `headers ${s.headers.join(', ')}` : '', s.kubeconfig ? 'kubeconfig stored' : ''].filter((d) => d !== '');
  return `${s.driver}: ${state}${details.length > 0 ? ` (${details.join('; ')})` : ''}`;
}

export const integrationsList: Command = {
  name: 'integrations list',
  summary: "List an org's tool gateway integrations: every driver, whether it is active, and its upstream (secrets are never shown).",
  usage: 'sluice integrations list ORG [--json] [--data-dir DIR]',
  options: { json: JSON_OPTION, 'data-dir': DATA_DIR_OPTION },
  run: (values, positionals) =>
    withStore(values, async (store) => {
      const org = await findOrg(store, positionals[0]);
      const records = new Map((await store.listIntegrations({ orgId: org.id })).map((r) => [r.driver, r]));
      const list = Object.keys(INTEGRATION_DRIVERS).map((d) => shown(d, records.get(d)));
      const rows = list.map((s) => [s.driver, s.active ? 'active' : s.enabled ? 'not configured' : 'disabled', s.url ?? '', s.headers.join(',') || (s.kubeconfig ? 'kubeconfig' : '')]);
      print(values, { org: org.id, integrations: list }, table([['DRIVER', 'STATE', 'URL', 'SECRETS'], ...rows]));
      return 0;
    }),
};

function toggle(enabled: boolean): Command {
  const verb = enabled ? 'enable' : 'disable';
  return {
    name: `integrations ${verb}`,
    summary: enabled
      ? 'Enable an integration for an org (it becomes active once configured).'
      : 'Disable an integration for an org: it leaves discovery and its tool calls return empty results. Its configuration is kept.',
    usage: `sluice integrations ${verb} ORG DRIVER [--json] [--data-dir DIR]`,
    options: { json: JSON_OPTION, 'data-dir': DATA_DIR_OPTION },
    run: (values, positionals) =>
      withStore(values, async (store) => {
        const org = await findOrg(store, positionals[0]);
        const driver = requireDriver(positionals[1]);
        const current = (await store.listIntegrations({ orgId: org.id })).find((r) => r.driver === driver);
        const record = await store.putIntegration({ ...(current ?? { orgId: org.id, driver }), enabled, updatedAt: new Date().toISOString() });
        const out = shown(driver, record);
        print(values, out, describe(out));
        return 0;
      }),
  };
}

export const integrationsEnable = toggle(true);
export const integrationsDisable = toggle(false);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * parseHeaders reads repeated `--header NAME=VALUE` options. A malformed one is refused without
 * echoing it: it holds a credential, often in the `Name: value` form other tools take.
 */
function parseHeaders(raw: OptionValues[string]): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  const list = Array.isArray(raw) ? raw : [String(raw)];
  const headers: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    const name = item.slice(0, eq).trim().toLowerCase();
    if (eq <= 0 || !HEADER_NAME.test(name)) {
      // Only what precedes the first ':' or '=' may be shown, and only when it is a plain header name.
      const sep = item.search(/[:=]/);
      const shownName = sep > 0 ? item.slice(0, sep).trim().toLowerCase() : '';
      const which = HEADER_NAME.test(shownName) ? `for header ${JSON.stringify(shownName)}; ` : '';
      const form = item[sep] === ':' ? 'NAME=VALUE, not NAME: VALUE' : 'NAME=VALUE with a valid HTTP header name';
      throw new UsageError(`--header must be ${form}, e.g. --header "authorization=Bearer TOKEN" (${which}the value is not shown)`);
    }
    headers[name] = item.slice(eq + 1).trim();
  }
  return headers;
}

export const integrationsSet: Command = {
  name: 'integrations set',
  summary:
    "Configure and enable an integration for an org: the upstream MCP server's --url and credential --header NAME=VALUE (repeatable) for forwarding drivers, or --kubeconfig for kube. Secrets are stored, never printed.",
  usage: 'sluice integrations set ORG DRIVER [--url URL] [--header NAME=VALUE ...] [--clear-headers] [--kubeconfig FILE] [--json] [--data-dir DIR]',
  options: {
    url: { type: 'string', valueName: 'URL', description: 'Upstream MCP server (streamable HTTP) of a forwarding driver.' },
    header: { type: 'string', valueName: 'NAME=VALUE', multiple: true, description: 'Header injected into every upstream call, e.g. authorization="Bearer ..." (repeatable; replaces stored headers).' },
    'clear-headers': { type: 'boolean', description: 'Remove the stored headers.' },
    kubeconfig: { type: 'string', valueName: 'FILE', description: 'kube: kubeconfig to store; one context per cluster (default: $KUBECONFIG).' },
    json: JSON_OPTION,
    'data-dir': DATA_DIR_OPTION,
  },
  run: (values, positionals) =>
    withStore(values, async (store) => {
      const org = await findOrg(store, positionals[0]);
      const driver = requireDriver(positionals[1]);
      if (INTEGRATION_DRIVERS[driver].defaultOn) throw new UsageError(`${driver} needs no configuration; use 'sluice integrations enable|disable'`);
      const current = (await store.listIntegrations({ orgId: org.id })).find((r) => r.driver === driver);
      const next: IntegrationRecord = { ...(current ?? { orgId: org.id, driver }), enabled: true, updatedAt: new Date().toISOString() };
      if (driver === 'kube') {
        if (values.url !== undefined || values.header !== undefined) throw new UsageError('kube takes --kubeconfig, not --url or --header');
        const file = typeof values.kubeconfig === 'string' ? values.kubeconfig : process.env.KUBECONFIG;
        if (file === undefined || file === '') throw new UsageError('give --kubeconfig FILE (or set KUBECONFIG)');
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (err) {
          throw new UsageError(`cannot read kubeconfig ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        if (!/\bcontexts\s*:/.test(text)) throw new UsageError(`${file} does not look like a kubeconfig (no contexts)`);
        next.kubeconfig = text;
      } else {
        if (values.kubeconfig !== undefined) throw new UsageError(`${driver} takes --url and --header, not --kubeconfig`);
        if (typeof values.url === 'string') {
          let parsed: URL;
          try {
            parsed = new URL(values.url);
          } catch {
            // Shown like a listed URL: user info and query may hold credentials.
            const shownUrl = values.url.replace(/^([^/?#]*\/\/)[^/?#]*@/, '$1***@').replace(/\?.*$/s, '?***');
            throw new UsageError(`--url is not a URL: ${JSON.stringify(shownUrl.slice(0, 80))}`);
          }
          if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('--url must be http:// or https://');
          next.url = values.url;
        }
        if (next.url === undefined) throw new UsageError(`${driver} forwards to an MCP server: give --url`);
        const headers = parseHeaders(values.header);
        if (values['clear-headers']) delete next.headers;
        if (headers !== undefined) next.headers = headers;
      }
      const record = await store.putIntegration(next);
      const out = shown(driver, record);
      print(values, out, describe(out));
      return 0;
    }),
};
