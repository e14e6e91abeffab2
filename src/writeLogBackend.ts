import { readFile } from 'node:fs/promises';
import { JetStreamWriteLog } from '../engine/storage/nats/jetStreamWriteLog.js';
import type { EventSink } from '../engine/storage/storageEvent.js';
import type { WriteLog } from '../engine/storage/writeLog.js';
import type { Config } from './config.js';

/**
 * openWriteLog opens the write log SVC_WRITE_LOG names: undefined for `wal` (the storage keeps
 * its embedded write-ahead log), a JetStream stream for `jetstream`. Unlike the object store,
 * the log is contacted here: without it no write can be acknowledged, so a server that cannot
 * reach it stops at start with the reason rather than answering 503 to every write.
 */
export async function openWriteLog(config: Config, onEvent: EventSink): Promise<WriteLog | undefined> {
  if (config.writeLog !== 'jetstream') return undefined;
  let creds: Uint8Array | undefined;
  if (config.natsCredsFile !== undefined) {
    try {
      creds = await readFile(config.natsCredsFile);
    } catch (err) {
      throw new Error(`SVC_NATS_CREDS_FILE: cannot read ${config.natsCredsFile}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  try {
    return await JetStreamWriteLog.open({
      servers: config.natsUrls,
      stream: config.natsStream,
      replicas: config.natsReplicas,
      partitions: config.writeLogPartitions,
      ackTimeoutMs: config.natsAckTimeoutMs,
      trim: config.writeLogTrim,
      maxAgeMs: config.natsMaxAgeMs,
      maxBytes: config.natsMaxBytes,
      user: config.natsUser,
      password: config.natsPassword,
      token: config.natsToken,
      creds,
      onEvent,
    });
  } catch (err) {
    throw new Error(`cannot open the JetStream write log at ${config.natsUrls.join(',')}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
