import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../bench/peers/processes.js';
import { loadConfig } from '../src/config.js';
import { openWriteLog } from '../src/writeLogBackend.js';

describe('write log configuration', () => {
  it('keeps the embedded WAL by default', async () => {
    const c = loadConfig({});
    expect([c.writeLog, c.writeLogPartitions, c.natsUrls, c.natsStream, c.natsReplicas, c.natsAckTimeoutMs]).toEqual(['wal', 16, [], 'SLUICE', 3, 10_000]);
    expect([c.natsUser, c.natsPassword, c.natsToken, c.natsCredsFile]).toEqual([undefined, undefined, undefined, undefined]);
    expect(await openWriteLog(c, () => undefined)).toBeUndefined();
  });

  it('reads the JetStream settings', () => {
    const c = loadConfig({
      SVC_WRITE_LOG: 'JetStream',
      SVC_NATS_URLS: 'nats://a:4222, nats://b:4222,tls://c:4222',
      SVC_NATS_STREAM: 'OBS_prod',
      SVC_NATS_REPLICAS: '5',
      SVC_WRITE_LOG_PARTITIONS: '64',
      SVC_NATS_ACK_TIMEOUT_MS: '2500',
      SVC_NATS_USER: 'sluice',
      SVC_NATS_PASSWORD: 's3cret',
      SVC_NATS_CREDS_FILE: 'nats.creds',
    });
    expect(c).toMatchObject({
      writeLog: 'jetstream',
      natsUrls: ['nats://a:4222', 'nats://b:4222', 'tls://c:4222'],
      natsStream: 'OBS_prod',
      natsReplicas: 5,
      writeLogPartitions: 64,
      natsAckTimeoutMs: 2500,
      natsUser: 'sluice',
      natsPassword: 's3cret',
      natsCredsFile: path.resolve('nats.creds'),
    });
  });

  it('names every bad write log setting', () => {
    expect(() => loadConfig({ SVC_WRITE_LOG: 'jetstream' })).toThrow(/SVC_NATS_URLS must be set when SVC_WRITE_LOG is jetstream/);
    expect(() => loadConfig({ SVC_WRITE_LOG: 'kafka' })).toThrow(/SVC_WRITE_LOG must be wal or jetstream/);
    let err = '';
    try {
      loadConfig({ SVC_NATS_URLS: 'http://a:4222', SVC_NATS_STREAM: 'a.b', SVC_NATS_REPLICAS: '7', SVC_WRITE_LOG_PARTITIONS: '0' });
    } catch (e) {
      err = String(e);
    }
    expect(err).toMatch(/SVC_NATS_URLS must list nats:\/\//);
    expect(err).toMatch(/SVC_NATS_STREAM must be 1 to 64 letters/);
    expect(err).toMatch(/SVC_NATS_REPLICAS must be between 1 and 5/);
    expect(err).toMatch(/SVC_WRITE_LOG_PARTITIONS must be between 1 and 1024/);
  });

  it('stops with the reason when no NATS server answers', async () => {
    const port = await freePort();
    const c = loadConfig({ SVC_WRITE_LOG: 'jetstream', SVC_NATS_URLS: `nats://127.0.0.1:${port}` });
    await expect(openWriteLog(c, () => undefined)).rejects.toThrow(new RegExp(`cannot open the JetStream write log at nats://127.0.0.1:${port}`));
  });

  it('stops with the reason when the credentials file cannot be read', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sluice-nats-creds-'));
    try {
      const c = loadConfig({ SVC_WRITE_LOG: 'jetstream', SVC_NATS_URLS: 'nats://127.0.0.1:1', SVC_NATS_CREDS_FILE: path.join(dir, 'missing.creds') });
      await expect(openWriteLog(c, () => undefined)).rejects.toThrow(/SVC_NATS_CREDS_FILE: cannot read .*missing\.creds/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
