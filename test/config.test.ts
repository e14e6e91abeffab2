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
      SVC_MCP_API_KEY: ' x'.repeat(20),
      SVC_RATE_LIMIT_RPS: '2.5',
    });
    expect(c.maxBodyBytes).toBe(512 * 1024);
    expect(c.metricsRequireKey).toBe(true);
    expect(c.mcpApiKey).toBe('x x x x x x x x x x x x x x x x x x x x'.trim());
    expect(c.rateLimitBurst).toBe(3);
  });

  it('treats an empty system key as disabled', () => {
    expect(loadConfig({ SVC_MCP_API_KEY: '   ' }).mcpApiKey).toBeUndefined();
  });

  it.each([
    ['SVC_PORT', '70000'],
    ['SVC_PORT', '80a'],
    ['SVC_MAX_BODY_BYTES', '10 bananas'],
    ['SVC_RATE_LIMIT_RPS', '-1'],
    ['SVC_LOG_LEVEL', 'chatty'],
    ['SVC_METRICS_REQUIRE_KEY', 'maybe'],
    ['SVC_MCP_API_KEY', 'short'],
    ['SVC_BOOTSTRAP_API_KEY', 'k'.repeat(40)],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
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
