import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, SETTINGS, loadConfig, settingsTable, unknownSettings } from '../src/config.js';

describe('configuration', () => {
  it('has documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('0.0.0.0');
    expect(c.dataDir).toBe(path.resolve('data'));
    expect(c.maxBodyBytes).toBe(16 * 1024 * 1024);
    expect(c.rateLimitPerSecond).toBe(0);
    expect(c.mcpApiKey).toBeUndefined();
  });

  it('reads sizes, booleans and secrets', () => {
    const c = loadConfig({
      SVC_MAX_BODY_BYTES: '512KiB',
      SVC_METRICS_REQUIRE_KEY: 'yes',
      SVC_MCP_API_KEY: '  q9Xv2LmR8tKp4WzN7sBd1HcYf6JgE3aU  ',
      SVC_RATE_LIMIT_RPS: '2.5',
    });
    expect(c.maxBodyBytes).toBe(512 * 1024);
    expect(c.metricsRequireKey).toBe(true);
    expect(c.mcpApiKey).toBe('q9Xv2LmR8tKp4WzN7sBd1HcYf6JgE3aU');
    expect(c.rateLimitBurst).toBe(3);
  });

  it('reads the ingestion rates: off by default, Mimir\'s and Loki\'s bursts, byte sizes for logs', () => {
    const defaults = loadConfig({});
    expect([defaults.ingestSamplesPerSecond, defaults.ingestSamplesBurst]).toEqual([0, 200_000]);
    expect([defaults.ingestLogBytesPerSecond, defaults.ingestLogBurstBytes]).toEqual([0, 6 * 1024 * 1024]);
    const c = loadConfig({
      SVC_INGEST_SAMPLES_PER_SECOND: '2500.5',
      SVC_INGEST_SAMPLES_BURST: '50000',
      SVC_INGEST_LOG_BYTES_PER_SECOND: '4MiB',
      SVC_INGEST_LOG_BURST_BYTES: '8MiB',
    });
    expect([c.ingestSamplesPerSecond, c.ingestSamplesBurst]).toEqual([2500.5, 50_000]);
    expect([c.ingestLogBytesPerSecond, c.ingestLogBurstBytes]).toEqual([4 * 1024 * 1024, 8 * 1024 * 1024]);
    expect(loadConfig({ SVC_INGEST_LOG_BYTES_PER_SECOND: '0' }).ingestLogBytesPerSecond).toBe(0);
  });

  it('treats an empty system key as disabled', () => {
    expect(loadConfig({ SVC_MCP_API_KEY: '   ' }).mcpApiKey).toBeUndefined();
  });

  it.each([
    ['SVC_PORT', '70000'],
    ['SVC_PORT', '80a'],
    ['SVC_MAX_BODY_BYTES', '10 bananas'],
    ['SVC_RATE_LIMIT_RPS', '-1'],
    ['SVC_INGEST_SAMPLES_PER_SECOND', '-5'],
    ['SVC_INGEST_SAMPLES_BURST', '0'],
    ['SVC_INGEST_LOG_BYTES_PER_SECOND', '100'],
    ['SVC_INGEST_LOG_BURST_BYTES', 'lots'],
    ['SVC_LOG_LEVEL', 'chatty'],
    ['SVC_METRICS_REQUIRE_KEY', 'maybe'],
    ['SVC_MCP_API_KEY', 'short'],
    ['SVC_BOOTSTRAP_API_KEY', 'k'.repeat(40)],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('refuses the manifest placeholder and obviously weak operator keys, saying why', () => {
    const manifest = readFileSync(path.resolve('k8s/sluice.yaml'), 'utf8');
    const placeholder = /bootstrap-api-key: "([^"]+)"/.exec(manifest)![1];
    const cases: Array<[string, RegExp]> = [
      [placeholder, /placeholder from k8s\/sluice\.yaml/],
      ['change-me-0123456789abcdefghijklmnopqrstuvwxyz', /placeholder/],
      ['REPLACEME_with_a_real_key_0123456789abcdefgh', /placeholder/],
      ['0123456789abcdef', /at least 32 characters/],
      ['abababababababababababababababababab', /fewer than 8 different characters/],
    ];
    for (const name of ['SVC_BOOTSTRAP_API_KEY', 'SVC_MCP_API_KEY']) {
      for (const [key, why] of cases) {
        const attempt = () => loadConfig({ SVC_BOOTSTRAP_ORG: 'ops', [name]: key });
        expect(attempt, `${name}=${key}`).toThrow(ConfigError);
        expect(attempt).toThrow(name);
        expect(attempt).toThrow(why);
      }
    }
    // Random keys pass, also hex ones with their small alphabet.
    for (const key of ['q9Xv2LmR8tKp4WzN7sBd1HcYf6JgE3aU', 'a3f09c1b7e4d28f6051c9be3d7a42f80', 'slk_VKSoyKwTT9MYcpPk7IxIVyBfvBVWRj5vik6g-bjwRAs']) {
      expect(loadConfig({ SVC_BOOTSTRAP_ORG: 'ops', SVC_BOOTSTRAP_API_KEY: key, SVC_MCP_API_KEY: key }).bootstrapApiKey).toBe(key);
    }
  });

  it('names SVC_ variables that no setting reads', () => {
    expect(unknownSettings({ SVC_PROT: '1', SVC_PORT: '2', HOME: '/root', SVC_DATA_DIRR: 'x' })).toEqual(['SVC_DATA_DIRR', 'SVC_PROT']);
  });

  it('is documented in README exactly as the settings table says', () => {
    const readme = readFileSync(path.resolve('README.md'), 'utf8');
    expect(readme).toContain(settingsTable());
    for (const s of SETTINGS) expect(readme).toContain(s.env);
  });
});
