import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { clientConfig, isUnavailable } from '../src/postgres/connection.js';
import { parseUrl } from '../src/postgres/url.js';
import { postgresSettings } from '../src/postgres/settings.js';

describe('PostgreSQL settings', () => {
  it('keeps the embedded stores by default', () => {
    const c = loadConfig({});
    expect(c.metaStore).toBe('file');
    expect(c.catalogStore).toBe('file');
    expect(c.catalogName).toBe('default');
    expect(c.postgresPoolSize).toBe(10);
    expect(c.postgresStatementTimeoutMs).toBe(10_000);
  });

  it('refuses an unknown store, a malformed URL or catalog name, and a pool of no connections', () => {
    expect(() => loadConfig({ SVC_META_STORE: 'mysql' })).toThrow(/SVC_META_STORE must be file or postgres/);
    expect(() => loadConfig({ SVC_META_STORE: 'postgres', SVC_POSTGRES_URL: 'mysql://x' })).toThrow(/must start with postgres:\/\//);
    expect(() => loadConfig({ SVC_CATALOG_NAME: '../x' })).toThrow(/SVC_CATALOG_NAME/);
    expect(() => loadConfig({ SVC_POSTGRES_POOL_SIZE: '0' })).toThrow(/SVC_POSTGRES_POOL_SIZE/);
    expect(loadConfig({ SVC_META_STORE: 'Postgres', SVC_POSTGRES_HOST: 'db' }).metaStore).toBe('postgres');
    // The catalog follows the metadata unless told otherwise.
    expect(loadConfig({ SVC_META_STORE: 'postgres', SVC_POSTGRES_HOST: 'db' }).catalogStore).toBe('postgres');
    expect(loadConfig({ SVC_META_STORE: 'postgres', SVC_POSTGRES_HOST: 'db', SVC_CATALOG_STORE: 'file' }).catalogStore).toBe('file');
  });

  it('takes the URL apart, fills what it leaves out from the separate settings, and reads the password file at connect time', async () => {
    expect(parseUrl('postgres://me:p%40ss@db.example:6543/meta?sslmode=require')).toEqual({
      host: 'db.example',
      port: 6543,
      user: 'me',
      password: 'p@ss',
      database: 'meta',
      ssl: { rejectUnauthorized: false },
    });
    expect(parseUrl('postgresql://me@/meta?host=/run/postgresql')).toEqual({ host: '/run/postgresql', user: 'me', database: 'meta' });
    expect(() => parseUrl('http://x')).toThrow(/postgres:\/\//);

    const dir = await mkdtemp(path.join(tmpdir(), 'sluice-pg-config-'));
    try {
      const file = path.join(dir, 'password');
      await writeFile(file, 'from-the-secret\n');
      const config = loadConfig({ SVC_META_STORE: 'postgres', SVC_POSTGRES_URL: 'postgres://db/meta', SVC_POSTGRES_USER: 'svc', SVC_POSTGRES_PASSWORD_FILE: file });
      const client = clientConfig(postgresSettings(config));
      expect(client).toMatchObject({ host: 'db', user: 'svc', database: 'meta', statement_timeout: 10_000 });
      expect(typeof client.password).toBe('function');
      expect(await (client.password as () => Promise<string>)()).toBe('from-the-secret');
      await writeFile(file, 'rotated');
      expect(await (client.password as () => Promise<string>)()).toBe('rotated');
      // A password in the URL wins over the file.
      expect(clientConfig({ url: 'postgres://u:inline@db/x', passwordFile: file, poolSize: 1, statementTimeoutMs: 1000 }).password).toBe('inline');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('tells an unreachable database from a wrong request', () => {
    const withCode = (code: string) => Object.assign(new Error('x'), { code });
    expect(isUnavailable(withCode('ECONNREFUSED'))).toBe(true);
    expect(isUnavailable(withCode('57P01'))).toBe(true);
    expect(isUnavailable(withCode('57014'))).toBe(true);
    expect(isUnavailable(withCode('08006'))).toBe(true);
    expect(isUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isUnavailable(withCode('23505'))).toBe(false);
    expect(isUnavailable(withCode('42P01'))).toBe(false);
    expect(isUnavailable(new TypeError('x is undefined'))).toBe(false);
  });
});
