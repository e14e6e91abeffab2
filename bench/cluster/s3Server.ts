import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { S3Connection } from '../../engine/storage/s3/s3Connection.js';
import { freePort } from '../peers/processes.js';
import { spawnServer, stopServer, waitUntilServing, type ServerProcess } from './serverProcess.js';

/** S3RVER_BIN is the npm package's own command line. */
const S3RVER_BIN = path.resolve('node_modules/s3rver/bin/s3rver.js');

export const TEST_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * TestS3 is a real S3-compatible server (s3rver) on loopback in its own process, keeping
 * objects in a temporary directory. It must not share the test's thread: the blob store's
 * blocking reads hold that thread while the server answers. `stop` kills it (connections drop
 * as in a real outage) and `start` brings it back on the same port with the same objects.
 */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** connection returns settings for a store under `prefix` in the test bucket. */
  connection(prefix?: string): S3Connection;
  /** env returns the service's settings for a store under `prefix`. */
  env(prefix: string): Record<string, string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startTestS3(bucket = 'sluice'): Promise<TestS3> {
  const directory = await mkdtemp(path.join(tmpdir(), 'sluice-s3-'));
  const port = await freePort();
  let server: ServerProcess | undefined;

  const start = async (): Promise<void> => {
    server = spawnServer(process.execPath, ['--openssl-legacy-provider', S3RVER_BIN, '-d', directory, '-a', '127.0.0.1', '-p', String(port), '-s', '--configure-bucket', bucket]);
    await waitUntilServing(server, 's3rver', () => accepts(port), 15_000, 25);
  };
  const stop = async (): Promise<void> => {
    const stopping = server;
    server = undefined;
    await stopServer(stopping, 'SIGKILL');
  };

  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    connection: (prefix = '') => ({ bucket, prefix, endpoint, region: 'us-east-1', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS }),
    env: (prefix) => ({
      SVC_BLOB_STORE: 's3',
      SVC_S3_ENDPOINT: endpoint,
      SVC_S3_BUCKET: bucket,
      SVC_S3_PREFIX: prefix,
      SVC_S3_REGION: 'us-east-1',
      SVC_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey,
    }),
    stop,
    start,
    async close() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
