import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort } from '../peers/processes.js';
import { spawnServer, stopServer, waitUntilServing, type ServerProcess } from './serverProcess.js';

/**
 * A real NATS JetStream cluster (Debian's nats-server) on loopback: three nodes, each with its
 * own client, cluster and monitoring port and its own store directory under one temp directory.
 * Nodes can be stopped and started again over the same directory, so tests can take one node
 * down or the whole cluster and bring it back with its data.
 */

/** NATS_SERVER_BIN is where Debian's package puts the server (sbin), or another copy on the usual paths. */
export const NATS_SERVER_BIN = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p)) ?? '/usr/sbin/nats-server';

/**
 * natsAvailable tells whether nats-server is installed. Without it the suite is skipped with a
 * message, except under CI=true, where .ci/run installs it and its absence is a failure.
 */
export function natsAvailable(suite: string): boolean {
  if (existsSync(NATS_SERVER_BIN)) return true;
  const reason = `${suite} needs Debian's nats-server package (${NATS_SERVER_BIN}); .ci/run installs it`;
  if (process.env.CI === 'true') throw new Error(`${reason}; with CI=true it is required`);
  console.warn(`skipped: ${reason}`);
  return false;
}

interface NodeSpec {
  name: string;
  clientPort: number;
  clusterPort: number;
  monitorPort: number;
  configFile: string;
}

export interface NatsCluster {
  /** urls are the client URLs of every node, for SVC_NATS_URLS. */
  readonly urls: string[];
  readonly dir: string;
  /** stopNode ends one node (SIGKILL when `kill`, else SIGTERM) and waits for it to exit. */
  stopNode(index: number, kill?: boolean): Promise<void>;
  /** startNode starts a stopped node again over its directory and waits until it serves clients. */
  startNode(index: number): Promise<void>;
  /** stopAll ends every running node. */
  stopAll(): Promise<void>;
  /** startAll starts every stopped node and waits until JetStream answers again. */
  startAll(): Promise<void>;
  /** waitForJetStream waits until a client can reach JetStream's API through the running nodes. */
  waitForJetStream(timeoutMs?: number): Promise<void>;
  /** close stops every node and removes the directory. */
  close(): Promise<void>;
}

function nodeConfig(spec: NodeSpec, all: NodeSpec[], dir: string): string {
  const routes = all.filter((n) => n !== spec).map((n) => `nats-route://127.0.0.1:${n.clusterPort}`);
  return [
    `server_name: ${spec.name}`,
    `listen: 127.0.0.1:${spec.clientPort}`,
    `http: 127.0.0.1:${spec.monitorPort}`,
    `jetstream {`,
    `  store_dir: ${JSON.stringify(path.join(dir, spec.name))}`,
    `  max_memory_store: 64MB`,
    `  max_file_store: 1GB`,
    `}`,
    `cluster {`,
    `  name: sluice-test`,
    `  listen: 127.0.0.1:${spec.clusterPort}`,
    `  routes: [${routes.join(', ')}]`,
    `}`,
    '',
  ].join('\n');
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** startNatsCluster writes the three nodes' configuration and starts them. */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sluice-nats-'));
  const specs: NodeSpec[] = [];
  for (let i = 0; i < size; i++) {
    specs.push({ name: `n${i + 1}`, clientPort: await freePort(), clusterPort: await freePort(), monitorPort: await freePort(), configFile: path.join(dir, `n${i + 1}.conf`) });
  }
  for (const spec of specs) {
    await mkdir(path.join(dir, spec.name), { recursive: true });
    await writeFile(spec.configFile, nodeConfig(spec, specs, dir));
  }
  const running: Array<ServerProcess | undefined> = specs.map(() => undefined);
  const urls = specs.map((s) => `nats://127.0.0.1:${s.clientPort}`);

  const launch = (index: number): ServerProcess => spawnServer(NATS_SERVER_BIN, ['-c', specs[index].configFile]);

  const waitServing = (index: number, timeoutMs = 15_000): Promise<void> =>
    waitUntilServing(running[index]!, `nats-server ${specs[index].name}`, () => httpOk(`http://127.0.0.1:${specs[index].monitorPort}/varz`), timeoutMs, 50);

  const waitForJetStream = async (timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    const live = urls.filter((_, i) => running[i] !== undefined);
    let last: unknown;
    while (Date.now() < deadline) {
      const nc = await connect({ servers: live, timeout: 2000 }).catch((err: unknown) => {
        last = err;
        return undefined;
      });
      if (nc) {
        try {
          const jsm = await jetstreamManager(nc, { timeout: 2000 });
          await jsm.getAccountInfo();
          return;
        } catch (err) {
          last = err;
        } finally {
          await nc.close();
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`JetStream did not become available: ${String(last)}\n${running.map((n) => n?.output() ?? '').join('\n')}`);
  };

  const stopNode = async (index: number, kill = false): Promise<void> => {
    const node = running[index];
    if (!node) return;
    running[index] = undefined;
    await stopServer(node, kill ? 'SIGKILL' : 'SIGTERM');
  };

  const startNode = async (index: number): Promise<void> => {
    if (running[index]) return;
    running[index] = launch(index);
    await waitServing(index);
  };

  const cluster: NatsCluster = {
    urls,
    dir,
    stopNode,
    startNode,
    async stopAll() {
      await Promise.all(specs.map((_, i) => stopNode(i)));
    },
    async startAll() {
      for (let i = 0; i < specs.length; i++) if (!running[i]) running[i] = launch(i);
      for (let i = 0; i < specs.length; i++) await waitServing(i);
      await waitForJetStream();
    },
    waitForJetStream,
    async close() {
      await Promise.all(specs.map((_, i) => stopNode(i, true)));
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.startAll();
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}
