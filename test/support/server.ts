import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/service.js';

/** LogCapture collects every JSON log line the server writes, for assertions on logging. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line !== '') this.lines.push(line);
    done();
  }
  records(): Array<Record<string, unknown>> {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface TestServer {
  url: string;
  service: RunningService;
  admin: KeyAdmin;
  dataDir: string;
  orgId: string;
  key: string;
  keyId: string;
  logs: LogCapture;
  announced: string[];
  stop(): Promise<void>;
}

/**
 * startTestServer runs the real service on a free loopback port over a fresh data directory
 * and provisions one org with one key through the same code the CLI uses.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-test-'));
  const logs = new LogCapture();
  const announced: string[] = [];
  const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'info', ...env });
  const service = await startService(config, { logDestination: logs, announce: (t) => announced.push(t) });
  const admin = new KeyAdmin(service.store);
  const org = await admin.createOrg(`test-${path.basename(dataDir)}`);
  const { key, record } = await admin.createKey(org.id, 'test');
  return {
    url: `http://127.0.0.1:${service.port}`,
    service,
    admin,
    dataDir,
    orgId: org.id,
    key,
    keyId: record.id,
    logs,
    announced,
    async stop() {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** waitFor polls `check` until it holds, for effects that land asynchronously (file watches). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
