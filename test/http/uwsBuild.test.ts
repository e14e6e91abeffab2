import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CANDIDATES, selectUws, UwsUnavailableError, type UwsCandidate } from '../../src/http/uws.js';
import { runCli } from '../support/child.js';
import { startTestServer } from '../support/server.js';

const NO_UWS_BINARY = path.resolve('test/fixtures/platform/noUwsBinary.cjs');
const require = createRequire(import.meta.url);

/** missingBinary is a candidate whose native file is absent, as for a Node ABI a package has no build for. */
function missingBinary(name: string): UwsCandidate {
  return { name, runsOn: 'Node 0', load: () => require(`./uws_${process.platform}_${process.arch}_0.node`) as never };
}

describe('uWebSockets.js build selection', () => {
  it('starts on a native build that loads here and logs which one', async () => {
    const server = await startTestServer();
    try {
      const loaded = server.logs.records().find((r) => r.msg === 'uWebSockets.js build loaded');
      expect(DEFAULT_CANDIDATES.map((c) => c.name)).toContain(loaded?.build);
      expect(loaded?.node).toBe(process.versions.node);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('takes the first candidate that loads, in order', () => {
    const [real] = DEFAULT_CANDIDATES.filter((c) => {
      try {
        c.load();
        return true;
      } catch {
        return false;
      }
    });
    expect(real).toBeDefined();
    const chosen = selectUws([missingBinary('absent'), real!, { ...real!, name: 'later' }]);
    expect(chosen.name).toBe(real!.name);
    expect(typeof chosen.module.App).toBe('function');
  });

  it('explains, when nothing loads, which Node versions and glibc are supported and why each build failed', () => {
    let caught: unknown;
    try {
      selectUws([
        missingBinary('first'),
        { name: 'second', runsOn: 'Node 99', load: () => require('a-package-that-is-not-installed') as never },
        {
          // How the modern build's entry point reports a Node ABI it has no binary for.
          name: 'third',
          runsOn: 'Node 25',
          load: () => {
            throw new Error("This version of uWS.js supports only Node.js 20 to 25.\n\nError: Cannot find module './uws_linux_x64_147.node'\nRequire stack:\n- /app/node_modules/uws-modern/uws.js");
          },
        },
      ]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UwsUnavailableError);
    const message = (caught as Error).message;
    expect(message).toContain(`Node ${process.versions.node}`);
    expect(message).toMatch(/Node\.js 22 or 24 .*glibc 2\.38/);
    expect(message).toContain('first [Node 0]: no binary for this Node ABI and platform');
    expect(message).toContain('second [Node 99]: not installed');
    expect(message).toContain('third [Node 25]: no binary for this Node ABI and platform');
    expect(message).not.toContain('Require stack');
  });

  it('stops `sluice serve` at start, before opening any store, when no build loads', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'sluice-uws-'));
    try {
      const dataDir = path.join(parent, 'data');
      const res = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir], {
        NODE_OPTIONS: `--require ${NO_UWS_BINARY}`,
      });
      expect(res.status).toBe(69);
      expect(res.stderr).toContain('sluice serve: no uWebSockets.js build loads on');
      expect(res.stderr).toMatch(/Node\.js 22 or 24 .*glibc 2\.38/);
      expect(res.stderr).toContain('GLIBC_99.0');
      expect(res.stdout).not.toContain('sluice listening');
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
