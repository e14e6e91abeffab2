import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useCliWorkspace, type CliResult } from '../support/child.js';

/**
 * `sluice integrations list|enable|disable|set` as an operator runs it: the compiled CLI over a
 * fresh data directory. Secrets (header values, URL user info and query, the kubeconfig) go
 * into the metadata store and never come back out on stdout or stderr.
 */

const DRIVERS = ['telemetry', 'common', 'kube', 'code', 'issues', 'chat', 'incidents', 'warehouse', 'collector'];

interface Shown {
  driver: string;
  enabled: boolean;
  active: boolean;
  url: string | null;
  headers: string[];
  kubeconfig: boolean;
  updatedAt: string | null;
}

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: prod
    cluster: { server: "https://10.0.0.1:6443", certificate-authority-data: "LS0tQ0EtLS0=" }
users:
  - name: reader
    user: { token: "kube-token-d41d8cd98f" }
contexts:
  - name: prod-eu
    context: { cluster: prod, user: reader, namespace: shop }
current-context: prod-eu
`;

describe('sluice integrations', () => {
  const ws = useCliWorkspace('sluice-cli-int-');
  const { cli } = ws;

  /** org creates the org `acme` and returns its id. */
  const org = (): string => {
    const res = cli('orgs', 'create', '--name', 'acme', '--json');
    expect(res.status).toBe(0);
    return (JSON.parse(res.stdout) as { id: string }).id;
  };
  const list = (ref = 'acme'): { org: string; integrations: Shown[] } => {
    const res = cli('integrations', 'list', ref, '--json');
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    return JSON.parse(res.stdout) as { org: string; integrations: Shown[] };
  };
  const entry = (driver: string, ref = 'acme'): Shown => list(ref).integrations.find((i) => i.driver === driver)!;
  /** refused checks a usage error: exit 2, nothing on stdout, the message on stderr. */
  const refused = (res: CliResult, message: string | RegExp): void => {
    expect(res.stdout).toBe('');
    expect(res.status, res.stderr).toBe(2);
    if (typeof message === 'string') expect(res.stderr).toContain(message);
    else expect(res.stderr).toMatch(message);
    expect(res.stderr).toContain("Run 'sluice integrations");
  };

  it('lists every driver, with telemetry and common active by default, by org name or id', () => {
    const id = org();
    const byName = list('acme');
    expect(byName.org).toBe(id);
    expect(byName.integrations.map((i) => i.driver)).toEqual(DRIVERS);
    for (const i of byName.integrations) {
      const on = i.driver === 'telemetry' || i.driver === 'common';
      expect(i, i.driver).toEqual({ driver: i.driver, enabled: on, active: on, url: null, headers: [], kubeconfig: false, updatedAt: null });
    }
    expect(list(id)).toEqual(byName);
    expect(list(id.toUpperCase())).toEqual(byName);

    const text = cli('integrations', 'list', 'acme');
    expect(text.status).toBe(0);
    const rows = text.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^DRIVER\s+STATE\s+URL\s+SECRETS$/);
    expect(rows.slice(1).map((r) => r.split(/\s+/).slice(0, 2).join(' '))).toEqual(DRIVERS.map((d) => `${d} ${d === 'telemetry' || d === 'common' ? 'active' : 'disabled'}`));

    refused(cli('integrations', 'list', 'no-such-org'), 'no org with id or name "no-such-org"');
    refused(cli('integrations', 'list'), 'the org is required');
  });

  it('stores a URL and two headers with set, and shows header names and a redacted URL only', async () => {
    org();
    const url = 'https://bot:pw-hunter2@issues.example.com/mcp?token=qs-secret-77&team=ops-team';
    const secrets = ['pw-hunter2', 'qs-secret-77', 'ops-team', 'tok-abc123', 'tenant-secret-9'];
    const set = cli('integrations', 'set', 'acme', 'issues', '--url', url, '--header', 'Authorization=Bearer tok-abc123', '--header', 'X-Tenant = tenant-secret-9', '--json');
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    const shownUrl = 'https://***@issues.example.com/mcp?token=***&team=***';
    const out = JSON.parse(set.stdout) as Shown;
    expect(out).toMatchObject({ driver: 'issues', enabled: true, active: true, url: shownUrl, headers: ['authorization', 'x-tenant'], kubeconfig: false });
    expect(Date.parse(out.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);

    const listed = list();
    expect(listed.integrations.find((i) => i.driver === 'issues')).toEqual(out);
    const text = cli('integrations', 'list', 'acme');
    expect(text.stdout).toMatch(/issues\s+active\s+https:\/\/\*\*\*@issues\.example\.com\/mcp\?token=\*\*\*&team=\*\*\*\s+authorization,x-tenant/);
    const plain = cli('integrations', 'set', 'acme', 'issues', '--url', url, '--header', 'authorization=Bearer tok-abc123', '--header', 'x-tenant=tenant-secret-9');
    expect(plain.stdout.trim()).toBe(`issues: active (url ${shownUrl}; headers authorization, x-tenant)`);
    for (const res of [set, text, plain]) for (const s of secrets) expect(res.stdout + res.stderr, s).not.toContain(s);

    // What was stored is the real thing: names lowercased, values trimmed, the URL as given.
    const meta = JSON.parse(await readFile(path.join(ws.dataDir, 'meta', 'meta.json'), 'utf8')) as { integrations: Array<Record<string, unknown>> };
    expect(meta.integrations).toEqual([
      expect.objectContaining({ orgId: listed.org, driver: 'issues', enabled: true, url, headers: { authorization: 'Bearer tok-abc123', 'x-tenant': 'tenant-secret-9' } }),
    ]);

    // --header replaces the stored set and keeps the URL; --clear-headers drops them.
    expect(JSON.parse(cli('integrations', 'set', 'acme', 'issues', '--header', 'authorization=Bearer rotated', '--json').stdout)).toMatchObject({ url: shownUrl, headers: ['authorization'] });
    expect(JSON.parse(cli('integrations', 'set', 'acme', 'issues', '--clear-headers', '--json').stdout)).toMatchObject({ url: shownUrl, headers: [], active: true });
  });

  it('stores a kubeconfig for kube without printing it', async () => {
    org();
    const file = path.join(ws.dataDir, 'kubeconfig.yaml');
    await writeFile(file, KUBECONFIG);
    const set = cli('integrations', 'set', 'acme', 'kube', '--kubeconfig', file, '--json');
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ driver: 'kube', enabled: true, active: true, url: null, headers: [], kubeconfig: true });
    const text = cli('integrations', 'list', 'acme');
    expect(text.stdout).toMatch(/kube\s+active\s+kubeconfig/);
    for (const res of [set, text]) expect(res.stdout + res.stderr).not.toContain('kube-token-d41d8cd98f');
    // The KUBECONFIG variable stands in for the flag.
    const fromEnv = runCli(['integrations', 'set', 'acme', 'kube', '--data-dir', ws.dataDir], { KUBECONFIG: file });
    expect(fromEnv.status).toBe(0);
    expect(fromEnv.stdout.trim()).toBe('kube: active (kubeconfig stored)');
  });

  it('refuses bad set invocations with exit 2 and a clear message, changing nothing', async () => {
    org();
    const notKube = path.join(ws.dataDir, 'not-a-kubeconfig.yaml');
    await writeFile(notKube, 'hello: world\n');
    const set = (...args: string[]): CliResult => cli('integrations', 'set', 'acme', ...args);

    refused(set('jira', '--url', 'https://x.example/mcp'), /unknown driver "jira"; known drivers: telemetry, common, kube, code, issues/);
    refused(set(), 'the driver is required');
    refused(set('telemetry'), "telemetry needs no configuration; use 'sluice integrations enable|disable'");
    refused(set('common', '--url', 'https://x.example/mcp'), 'common needs no configuration');

    refused(runCli(['integrations', 'set', 'acme', 'kube', '--data-dir', ws.dataDir], { KUBECONFIG: '' }), 'give --kubeconfig FILE (or set KUBECONFIG)');
    refused(set('kube', '--kubeconfig', path.join(ws.dataDir, 'missing.yaml')), /cannot read kubeconfig .*missing\.yaml: ENOENT/);
    refused(set('kube', '--kubeconfig', notKube), 'does not look like a kubeconfig (no contexts)');
    refused(set('kube', '--url', 'https://x.example/mcp'), 'kube takes --kubeconfig, not --url or --header');
    refused(set('issues', '--url', 'https://x.example/mcp', '--kubeconfig', notKube), 'issues takes --url and --header, not --kubeconfig');

    refused(set('chat'), 'chat forwards to an MCP server: give --url');
    refused(set('chat', '--header', 'authorization=Bearer x'), 'give --url');
    refused(set('chat', '--url', 'not a url'), '--url is not a URL: "not a url"');
    refused(set('chat', '--url', 'ftp://files.example.com/mcp'), '--url must be http:// or https://');
    // A URL that does not parse is still shown without its user info and query.
    const badWithSecrets = set('chat', '--url', 'https://bot:pw-hunter2@chat example.com/mcp?token=qs-secret-77');
    refused(badWithSecrets, '--url is not a URL: "https://***@chat example.com/mcp?***"');
    expect(badWithSecrets.stderr).not.toContain('pw-hunter2');
    expect(badWithSecrets.stderr).not.toContain('qs-secret-77');

    const url = ['--url', 'https://chat.example.com/mcp'];
    refused(set('chat', ...url, '--header', 'novalue'), '--header must be NAME=VALUE');
    refused(set('chat', ...url, '--header', '=orphan-value-31'), '--header must be NAME=VALUE');
    refused(set('chat', ...url, '--header', 'bad name=x'), 'valid HTTP header name');
    // Header values never reach the terminal, even from a malformed --header: curl's `Name: value` form...
    const colon = set('chat', ...url, '--header', 'Authorization: Bearer tok-colon-555');
    refused(colon, '--header must be NAME=VALUE, not NAME: VALUE');
    expect(colon.stderr).toContain('"authorization"');
    // ...with a base64 token, whose '=' padding looks like the separator...
    const padded = set('chat', ...url, '--header', 'Authorization: Bearer dG9rLWNvbG9uLTU1NQ==');
    refused(padded, 'not NAME: VALUE');
    // ...or a bare token with the name forgotten.
    const bare = set('chat', ...url, '--header', 'tok-bare-4242');
    refused(bare, '--header must be NAME=VALUE');
    const orphan = set('chat', ...url, '--header', '=orphan-value-31');
    for (const [res, secret] of [
      [colon, 'tok-colon-555'],
      [padded, 'dG9rLWNvbG9uLTU1NQ'],
      [bare, 'tok-bare-4242'],
      [orphan, 'orphan-value-31'],
    ] as const) {
      expect(res.stderr.toLowerCase(), secret).not.toContain(secret.toLowerCase());
    }
    refused(set('chat', ...url, '--nope'), "Unknown option '--nope'");

    // Nothing was stored by any of them.
    const after = list();
    for (const i of after.integrations) expect(i.updatedAt, i.driver).toBeNull();
  });

  it('toggles integrations with disable and enable, keeping their configuration', () => {
    const id = org();
    const toggle = (verb: 'enable' | 'disable', ref: string, driver: string): Shown => {
      const res = cli('integrations', verb, ref, driver, '--json');
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      return JSON.parse(res.stdout) as Shown;
    };

    expect(toggle('disable', 'acme', 'telemetry')).toMatchObject({ driver: 'telemetry', enabled: false, active: false });
    expect(entry('telemetry')).toMatchObject({ enabled: false, active: false });
    expect(entry('common')).toMatchObject({ enabled: true, active: true });
    expect(toggle('enable', id, 'TELEMETRY')).toMatchObject({ driver: 'telemetry', enabled: true, active: true });
    expect(entry('telemetry', id)).toMatchObject({ enabled: true, active: true });

    // An upstream driver enabled without a URL is enabled but not active.
    expect(toggle('enable', 'acme', 'chat')).toMatchObject({ enabled: true, active: false, url: null });
    expect(cli('integrations', 'list', 'acme').stdout).toMatch(/\nchat\s+not configured\n/);
    const text = cli('integrations', 'enable', 'acme', 'chat');
    expect(text.stdout.trim()).toBe('chat: enabled, needs --url of its MCP server');

    expect(cli('integrations', 'set', id, 'issues', '--url', 'https://issues.example.com/mcp', '--header', 'authorization=Bearer tok-keep-1').status).toBe(0);
    const disabled = cli('integrations', 'disable', 'acme', 'issues');
    expect(disabled.status).toBe(0);
    expect(disabled.stdout.trim()).toBe('issues: disabled (url https://issues.example.com/mcp; headers authorization)');
    expect(entry('issues')).toMatchObject({ enabled: false, active: false, url: 'https://issues.example.com/mcp', headers: ['authorization'] });
    expect(toggle('enable', 'acme', 'issues')).toMatchObject({ enabled: true, active: true, url: 'https://issues.example.com/mcp', headers: ['authorization'] });

    refused(cli('integrations', 'disable', 'acme', 'nope'), 'unknown driver "nope"');
    refused(cli('integrations', 'enable', 'acme'), 'the driver is required');
    refused(cli('integrations', 'enable', 'someone-else', 'chat'), 'no org with id or name "someone-else"');
  });
});
