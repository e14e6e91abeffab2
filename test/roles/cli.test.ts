import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startChildServer, useCliWorkspace } from '../support/child.js';

describe('sluice serve --role', () => {
  const ws = useCliWorkspace('sluice-role-cli-');

  it('refuses an unknown role as a usage error, from the flag or SVC_ROLE', () => {
    const flag = ws.cli('serve', '--role', 'writer');
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain('--role must be one of all, ingest, ingester, query, compactor, got "writer"');
    const env = runCli(['serve', '--data-dir', ws.dataDir], { SVC_ROLE: 'writer' });
    expect(env.status).toBe(78);
    expect(env.stderr).toContain('SVC_ROLE must be one of all, ingest, ingester, query, compactor, got "writer"');
  });

  it('refuses a role the embedded backends cannot carry, with the settings it needs and no stack trace', () => {
    const res = runCli(['serve', '--role', 'query', '--data-dir', ws.dataDir], { SVC_HOST: '127.0.0.1', SVC_PORT: '0' });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('sluice serve: role query runs beside other Sluice processes and cannot use the embedded backends');
    expect(res.stderr).toContain('SVC_META_STORE=postgres with SVC_POSTGRES_URL');
    expect(res.stderr).toContain('SVC_BLOB_STORE=s3 with SVC_S3_BUCKET (now local)');
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.stderr).not.toContain('API key:');
    expect(existsSync(path.join(ws.dataDir, 'meta'))).toBe(false);
  });

  it('keeps the demo to the all role', () => {
    const res = ws.cli('serve', '--role', 'ingest', '--demo');
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('--demo needs the all role, not ingest');
  });

  it('lists the roles in its help', () => {
    const res = runCli(['serve', '--help']);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('--role ROLE');
    expect(res.stdout).toMatch(/^Roles:\n  all +everything in one process/m);
    for (const role of ['ingest', 'ingester', 'query', 'compactor']) expect(res.stdout).toMatch(new RegExp(`^  ${role} +\\S`, 'm'));
    expect(res.stdout).toContain('`SVC_ROLE_EMBEDDED`');
  });

  it('runs a role alone with SVC_ROLE_EMBEDDED and stops cleanly on SIGTERM', async () => {
    const child = await startChildServer({ SVC_DATA_DIR: ws.dataDir, SVC_ROLE: 'compactor', SVC_ROLE_EMBEDDED: 'true' });
    ws.children.push(child);
    const ready = await fetch(`${child.url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', role: 'compactor', components: ['compaction'] });
    expect((await fetch(`${child.url}/v1/metrics`, { method: 'POST' })).status).toBe(404);
    child.proc.kill('SIGTERM');
    expect(await child.exit).toBe(0);
    ws.children.pop();
  });
});
