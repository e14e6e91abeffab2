import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, sha256Hex, startChildServer, useCliWorkspace } from './support/child.js';

describe('sluice CLI', () => {
  const ws = useCliWorkspace('sluice-cli-');
  const { children, cli } = ws;

  it('documents every command and option in --help', () => {
    const top = runCli(['--help']);
    expect(top.status).toBe(0);
    for (const cmd of ['serve', 'orgs create', 'orgs list', 'orgs set', 'keys create', 'keys list', 'keys revoke']) expect(top.stdout).toContain(cmd);
    const keys = runCli(['keys', 'create', '--help']);
    for (const opt of ['--org ID', '--name NAME', '--json', '--data-dir DIR']) expect(keys.stdout).toContain(opt);
    const serve = runCli(['serve', '--help']);
    for (const env of ['SVC_PORT', 'SVC_HOST', 'SVC_DATA_DIR', 'SVC_MAX_BODY_BYTES', 'SVC_MCP_API_KEY', 'SVC_BOOTSTRAP_ORG']) {
      expect(serve.stdout).toContain(env);
    }
  });

  it('creates orgs and keys, lists keys without secrets, stores only hashes, and revokes', async () => {
    const org = JSON.parse(cli('orgs', 'create', '--name', 'acme', '--json').stdout) as { id: string; name: string };
    expect(org.name).toBe('acme');
    expect(org.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(cli('orgs', 'create', '--name', 'acme').status).toBe(2);

    const created = JSON.parse(cli('keys', 'create', '--org', org.id, '--name', 'ci', '--json').stdout) as Record<string, string>;
    expect(created.key).toMatch(/^slk_[A-Za-z0-9_-]{43}$/);
    expect(created).not.toHaveProperty('hash');

    const listed = JSON.parse(cli('keys', 'list', '--json').stdout) as Array<Record<string, string>>;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: created.id, orgId: org.id, name: 'ci' });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(listed[0]).not.toHaveProperty('hash');

    const onDisk = await readFile(path.join(ws.dataDir, 'meta', 'meta.json'), 'utf8');
    expect(onDisk).not.toContain(created.key);
    expect(onDisk).toContain(sha256Hex(created.key));

    const revoked = JSON.parse(cli('keys', 'revoke', created.id, '--json').stdout) as Record<string, string>;
    expect(revoked.revokedAt).toBeTruthy();
    expect(cli('keys', 'revoke', 'no-such-key').status).toBe(2);
    expect(cli('keys', 'create', '--org', '00000000-0000-4000-8000-000000000000').stderr).toContain('does not exist');
  });

  it('creates and announces a default key on first start only, and a running server honours CLI revocation', async () => {
    const first = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    children.push(first);
    const key = /API key: (slk_\S+)/.exec(first.stderr())?.[1];
    expect(key).toBeDefined();
    expect(first.stdout()).not.toContain(key!);
    const ping = () => fetch(`${first.url}/api/v1/ping`, { headers: { 'x-svc-api-key': key! } });
    expect((await ping()).status).toBe(200);

    const keyId = (JSON.parse(cli('keys', 'list', '--json').stdout) as Array<{ id: string }>)[0].id;
    expect(cli('keys', 'revoke', keyId).status).toBe(0);
    const deadline = Date.now() + 2000;
    while ((await ping()).status !== 401) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 25));
    }

    first.proc.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect(first.stdout()).toContain('sluice stopped');
    children.pop();

    const second = await startChildServer({ SVC_DATA_DIR: ws.dataDir });
    children.push(second);
    expect(second.stderr()).not.toContain('API key:');
  });

  it('provisions SVC_BOOTSTRAP_ORG and SVC_BOOTSTRAP_API_KEY idempotently', async () => {
    const env = { SVC_DATA_DIR: ws.dataDir, SVC_BOOTSTRAP_ORG: 'platform', SVC_BOOTSTRAP_API_KEY: 'provisioned-key-0123456789abcdef0123456789' };
    for (let i = 0; i < 2; i++) {
      const srv = await startChildServer(env);
      children.push(srv);
      expect(srv.stderr()).not.toContain('API key:');
      const res = await fetch(`${srv.url}/api/v1/ping`, { headers: { 'x-svc-api-key': env.SVC_BOOTSTRAP_API_KEY } });
      expect(res.status).toBe(200);
      srv.proc.kill('SIGTERM');
      expect(await srv.exit).toBe(0);
      children.pop();
    }
    const orgs = JSON.parse(cli('orgs', 'list', '--json').stdout) as Array<{ name: string }>;
    expect(orgs.map((o) => o.name)).toEqual(['platform']);
    expect((JSON.parse(cli('keys', 'list', '--json').stdout) as unknown[]).length).toBe(1);
  });

  it('stops start-up with a message naming each invalid variable', () => {
    const res = runCli(['serve'], { SVC_DATA_DIR: ws.dataDir, SVC_PORT: 'eighty', SVC_MAX_BODY_BYTES: '12 parsecs', SVC_LOG_LEVEL: 'loud' });
    expect(res.status).toBe(78);
    for (const name of ['SVC_PORT', 'SVC_MAX_BODY_BYTES', 'SVC_LOG_LEVEL']) expect(res.stderr).toContain(name);
  });
});
