import { randomUUID } from 'node:crypto';
import { DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import type { EventSink } from '../storageEvent.js';
import type { WriteLog, WriteLogReader } from '../writeLog.js';

/**
 * JetStreamWriteLog is the WriteLog on NATS JetStream. One stream holds every partition, one
 * subject each (`<stream>.p.<n>`), stored on `replicas` servers; a publish resolves only with
 * JetStream's acknowledgement, which the cluster gives once a majority of the replicas stored
 * the message. Every append carries a message id (`Nats-Msg-Id`) so a publish retried after a
 * lost acknowledgement is stored once (within the stream's duplicate window).
 *
 * Readers are ordered consumers filtered on one partition's subject, starting at a sequence:
 * they need no acknowledgements and no server-side state, and the client recreates them after
 * a gap or a lost connection. Committed positions live in a second, small stream that keeps
 * the last message per partition subject (`<stream>_POSITIONS`, subjects
 * `<stream>.committed.<n>`).
 *
 * The stream keeps records by limits, and nothing a consumer does removes them by itself: its
 * readers are ordered consumers without acknowledgements, so neither work-queue nor interest
 * retention could tell when a record is safe. `commit` trims instead: the caller commits a
 * position only after the catalog recorded segments holding everything up to it, so the
 * records at or below it are purged from the partition's subject then (`trim`, on by default).
 * `maxAgeMs` and `maxBytes` are safety bounds on top: past `maxBytes` JetStream refuses new
 * writes (discard policy new: the client gets 503, no acknowledged record is dropped), while
 * `maxAgeMs` removes records by age whether or not they were cut.
 */
export interface JetStreamWriteLogOptions {
  servers: string[];
  stream: string;
  replicas: number;
  partitions: number;
  user?: string;
  password?: string;
  token?: string;
  /** creds is the content of a NATS credentials file (JWT and NKey seed). */
  creds?: Uint8Array;
  /** ackTimeoutMs bounds how long an append waits for JetStream's acknowledgement, retries included. */
  ackTimeoutMs?: number;
  /** trim purges a partition's records at or below each committed position (default true). */
  trim?: boolean;
  /** maxAgeMs bounds how long the stream keeps a record, cut or not; 0 or absent: no bound. */
  maxAgeMs?: number;
  /** maxBytes bounds the stream's size; past it new writes are refused. 0 or absent: no bound. */
  maxBytes?: number;
  onEvent?: EventSink;
}

/** DUPLICATE_WINDOW_NS is how long JetStream remembers message ids for deduplication (2 minutes). */
const DUPLICATE_WINDOW_NS = 120_000_000_000;
/** HEADER_ROOM is what the message id header and protocol framing need besides the record. */
const HEADER_ROOM = 1024;
/** ATTEMPT_TIMEOUT_MS bounds one publish attempt within the ack timeout. */
const ATTEMPT_TIMEOUT_MS = 1000;
/** PULL_EXPIRES_MS and PULL_HEARTBEAT_MS bound how long a reader takes to notice its consumer is gone. */
const PULL_EXPIRES_MS = 2000;
const PULL_HEARTBEAT_MS = 500;
/** STALL_MS is how long a reader may go without a record while its partition has newer ones. */
const STALL_MS = 2000;
/** READER_RETRY_MS is how long a reader waits before recreating its consumer after a failure. */
const READER_RETRY_MS = 500;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class JetStreamWriteLog implements WriteLog {
  readonly partitions: number;
  readonly maxRecordBytes: number;
  private readonly ackTimeoutMs: number;
  private readonly emit: EventSink;
  private readonly readers = new Set<{ stop(): Promise<void> }>();
  /** trimmed is, per partition, the position this process last purged through: a commit at or below it purges nothing new. */
  private readonly trimmed = new Map<number, number>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: JetStreamWriteLogOptions,
    readonly identity: string,
  ) {
    this.partitions = options.partitions;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.emit = options.onEvent ?? (() => {});
    this.maxRecordBytes = Math.max(64 * 1024, nc.info!.max_payload - HEADER_ROOM);
    void this.followConnection();
  }

  /** connected is false between a lost connection and the next one. */
  private connected = true;

  /**
   * followConnection tracks whether the client is connected. While it is not, appends wait
   * instead of publishing: the client would buffer every write of an outage in memory and
   * send it after reconnecting, long after its request was answered with an error.
   */
  private async followConnection(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') this.connected = false;
      else if (status.type === 'reconnect') this.connected = true;
    }
  }

  /**
   * open connects (trying every server), creates the stream and the positions stream when they
   * do not exist, and returns the log. An existing stream is used as it is; its replica count
   * is reported if it differs from the configured one, since changing it is an operator's call.
   */
  static async open(options: JetStreamWriteLogOptions): Promise<JetStreamWriteLog> {
    const nc = await connect({
      servers: options.servers,
      name: 'sluice',
      timeout: 5000,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      user: options.user,
      pass: options.password,
      token: options.token,
      authenticator: options.creds ? credsAuthenticator(options.creds) : undefined,
    });
    try {
      const jsm = await jetstreamManager(nc, { timeout: 5000 });
      const limits: StreamLimits = { maxAgeMs: options.maxAgeMs ?? 0, maxBytes: options.maxBytes ?? 0 };
      const info = await ensureStream(jsm, options.stream, [`${options.stream}.p.*`], options.replicas, options.onEvent, { limits });
      await ensureStream(jsm, `${options.stream}_POSITIONS`, [`${options.stream}.committed.*`], options.replicas, options.onEvent, { maxPerSubject: 1 });
      const js = jetstream(nc, { timeout: ATTEMPT_TIMEOUT_MS });
      return new JetStreamWriteLog(nc, js, jsm, options, `${options.stream}@${info.created}`);
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
  }

  private subject(partition: number): string {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.partitions) throw new Error(`partition ${partition} out of range`);
    return `${this.options.stream}.p.${partition}`;
  }

  /**
   * append publishes with a fresh message id and retries with the same id until JetStream
   * acknowledges or the ack timeout has passed: a retry after a lost acknowledgement comes
   * back as a duplicate with the first copy's sequence, so the record is stored once.
   */
  async append(partition: number, record: Uint8Array): Promise<number> {
    const subject = this.subject(partition);
    const msgID = randomUUID();
    const deadline = Date.now() + this.ackTimeoutMs;
    let last: unknown;
    for (let attempt = 0; ; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (!this.connected) {
        last = new Error('not connected to NATS');
        await sleep(Math.min(50, left));
        continue;
      }
      try {
        // Short attempts: a publish sent to a stream leader that just died gets no answer, and
        // the next attempt reaches the new leader once one is elected.
        const timeout = Math.min(left, ATTEMPT_TIMEOUT_MS);
        const ack = await this.js.publish(subject, record, { msgID, timeout, expect: { streamName: this.options.stream } });
        return ack.seq;
      } catch (err) {
        last = err;
        if (this.nc.isClosed()) break;
        await sleep(Math.min(50 * 2 ** attempt, 500, Math.max(0, deadline - Date.now())));
      }
    }
    throw new Error(`JetStream did not acknowledge the write within ${this.ackTimeoutMs} ms: ${last instanceof Error ? last.message : String(last)}`);
  }

  async endPosition(partition: number): Promise<number> {
    const last = await this.jsm.streams.getMessage(this.options.stream, { last_by_subj: this.subject(partition) });
    return last?.seq ?? 0;
  }

  read(partition: number, after: number, onRecord: (position: number, record: Uint8Array) => void, onError: (err: unknown) => void): WriteLogReader {
    const subject = this.subject(partition);
    let position = after;
    let stopped = false;
    let stopCurrent: (() => void) | undefined;
    let lastDelivery = Date.now();
    let checking = false;
    // The client recreates an ordered consumer after missed heartbeats, but not in every case
    // (a stream leader lost while the connection moves to another server): a reader that got
    // nothing for a while although the partition holds newer records starts over from the last
    // record it delivered.
    const watchdog = setInterval(() => {
      if (stopped || checking || !stopCurrent || Date.now() - lastDelivery < STALL_MS) return;
      checking = true;
      this.endPosition(partition)
        .then((end) => {
          if (end > position && Date.now() - lastDelivery >= STALL_MS && !stopped) {
            onError(new Error(`reader of partition ${partition} stalled at ${position} below ${end}; recreating it`));
            stopCurrent?.();
          }
        })
        .catch(() => undefined)
        .finally(() => (checking = false));
    }, STALL_MS);
    watchdog.unref();
    const loop = (async () => {
      while (!stopped) {
        try {
          const consumer = await this.js.consumers.get(this.options.stream, {
            filter_subjects: subject,
            deliver_policy: DeliverPolicy.StartSequence,
            opt_start_seq: position + 1,
          });
          if (stopped) break;
          // Short pulls with frequent heartbeats: an ordered consumer lives on one server, and
          // when that server goes the client notices two missed heartbeats and recreates the
          // consumer elsewhere from the last delivered sequence, within about a second.
          const messages = await consumer.consume({ max_messages: 256, expires: PULL_EXPIRES_MS, idle_heartbeat: PULL_HEARTBEAT_MS });
          stopCurrent = () => void messages.stop();
          lastDelivery = Date.now();
          for await (const m of messages) {
            if (stopped) break;
            lastDelivery = Date.now();
            // An ordered consumer never goes back, but a recreated one starts where it was told.
            if (m.seq <= position) continue;
            position = m.seq;
            onRecord(m.seq, m.data);
          }
        } catch (err) {
          if (stopped) break;
          onError(err);
        }
        stopCurrent = undefined;
        if (!stopped) await sleep(READER_RETRY_MS);
      }
    })();
    const reader = {
      stop: async () => {
        stopped = true;
        clearInterval(watchdog);
        stopCurrent?.();
        this.readers.delete(reader);
        await loop;
      },
    };
    this.readers.add(reader);
    return reader;
  }

  /**
   * commit records the position in the positions stream and then, unless trimming is off,
   * purges the partition's records at or below it: the caller commits only what segments the
   * catalog names already hold. A purge that fails is thrown; the next commit covers it.
   */
  async commit(partition: number, position: number): Promise<void> {
    const subject = this.subject(partition);
    await this.js.publish(`${this.options.stream}.committed.${partition}`, new TextEncoder().encode(String(position)), { timeout: this.ackTimeoutMs });
    if (this.options.trim === false || position <= (this.trimmed.get(partition) ?? 0)) return;
    // `seq` purges the subject's messages below it, so position + 1 removes the one at position too.
    await this.jsm.streams.purge(this.options.stream, { filter: subject, seq: position + 1 });
    this.trimmed.set(partition, Math.max(position, this.trimmed.get(partition) ?? 0));
  }

  async committed(partition: number): Promise<number> {
    this.subject(partition);
    const last = await this.jsm.streams.getMessage(`${this.options.stream}_POSITIONS`, { last_by_subj: `${this.options.stream}.committed.${partition}` });
    if (!last) return 0;
    const n = Number(new TextDecoder().decode(last.data));
    return Number.isSafeInteger(n) && n >= 0 ? n : 0;
  }

  async close(): Promise<void> {
    for (const r of [...this.readers]) await r.stop();
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
    this.emit({ level: 'info', message: 'closed the JetStream write log', fields: { stream: this.options.stream } });
  }
}

/** StreamLimits are the write log stream's safety bounds (0: none). */
interface StreamLimits {
  maxAgeMs: number;
  maxBytes: number;
}

/** limitConfig is how JetStream spells the limits: max_age in nanoseconds (0: none), max_bytes -1 for none. */
function limitConfig(limits: StreamLimits): { max_age: number; max_bytes: number; discard: DiscardPolicy } {
  return { max_age: limits.maxAgeMs * 1_000_000, max_bytes: limits.maxBytes > 0 ? limits.maxBytes : -1, discard: DiscardPolicy.New };
}

/**
 * ensureStream returns the stream's info, creating it with the given subjects and replicas
 * first if it does not exist. An existing stream keeps its replica count (changing it is an
 * operator's call), but its age and size limits follow the configuration, which is where the
 * operator sets them.
 */
async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  subjects: string[],
  replicas: number,
  onEvent: EventSink | undefined,
  shape: { maxPerSubject?: number; limits?: StreamLimits },
): Promise<{ created: string }> {
  const existing = await jsm.streams.info(name).catch((err: unknown) => {
    if (err instanceof Error && /stream not found/i.test(err.message)) return undefined;
    throw err;
  });
  const limits = shape.limits ? limitConfig(shape.limits) : undefined;
  if (existing) {
    if (existing.config.num_replicas !== replicas) {
      onEvent?.({
        level: 'warn',
        message: 'the JetStream stream exists with another replica count; it is used as it is',
        fields: { stream: name, replicas: existing.config.num_replicas, configured: replicas },
      });
    }
    const { config } = existing;
    if (limits && (config.max_age !== limits.max_age || config.max_bytes !== limits.max_bytes || config.discard !== limits.discard)) {
      const updated = await jsm.streams.update(name, { ...config, ...limits });
      onEvent?.({ level: 'info', message: 'updated the JetStream stream\'s limits', fields: { stream: name, maxAgeNs: limits.max_age, maxBytes: limits.max_bytes } });
      return updated;
    }
    return existing;
  }
  return jsm.streams.add({
    name,
    subjects,
    num_replicas: replicas,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    duplicate_window: DUPLICATE_WINDOW_NS,
    ...(limits ?? {}),
    ...(shape.maxPerSubject === undefined ? {} : { max_msgs_per_subject: shape.maxPerSubject }),
  });
}
