/**
 * WriteLog is the replicated log a write passes through before it is acknowledged, when the
 * embedded WAL is not the durable step (SVC_WRITE_LOG=jetstream). It is kept small so that
 * each log system (NATS JetStream today, Kafka later) needs only this much:
 *
 * - The log has `partitions` partitions, numbered 0..partitions-1. Records of one partition
 *   are totally ordered; partitions are independent of each other.
 * - `append(partition, record)` resolves with the record's position only once the log has
 *   durably acknowledged it (stored on its replicas); it rejects if that cannot be confirmed
 *   in bounded time. An append that is retried inside the implementation (a lost
 *   acknowledgement) stores the record once: implementations use the log's own deduplication
 *   (JetStream's message id, Kafka's idempotent producer).
 * - A position is a positive integer that only grows within a partition (JetStream's stream
 *   sequence, Kafka's offset + 1). Positions need not be contiguous; 0 means "before the
 *   first record".
 * - `read(partition, after, onRecord)` delivers the records with a position greater than
 *   `after`, in order, each once per reader, until the reader is stopped; `onRecord` runs
 *   synchronously, so a record is handled before the next is delivered. A reader outlives
 *   connection losses (it resumes after the last position it delivered).
 * - `endPosition(partition)` is the position of the last record stored now (0 if none), so a
 *   reader can tell when it has caught up (Kafka's high-water mark).
 * - `commit(partition, position)` records that everything up to `position` is safe elsewhere
 *   (in segments the catalog names); `committed(partition)` reads it back. The consumer keeps
 *   its own copy of the positions with the data they cover (the segment catalog), which is the
 *   one replay trusts; the log's copy lets it or its operators see how far consumers are. The
 *   consumer commits only after the catalog recorded the segments, so a log may then delete
 *   the partition's records at or below `position` (JetStream purges them; Kafka would
 *   `deleteRecords`): replay never reads below the catalog's position again. After that
 *   `endPosition` may answer 0 for a partition whose records are all gone.
 * - `identity` names this log instance (for JetStream the stream's name and creation time):
 *   positions recorded against another identity are meaningless (the log was recreated).
 *
 * Ingest and the consumer only share the log, never memory, so they can run in different
 * processes.
 */
export interface WriteLog {
  readonly partitions: number;
  readonly identity: string;
  /** maxRecordBytes is the largest record `append` takes; callers split bigger writes. */
  readonly maxRecordBytes: number;
  append(partition: number, record: Uint8Array): Promise<number>;
  endPosition(partition: number): Promise<number>;
  read(partition: number, after: number, onRecord: (position: number, record: Uint8Array) => void, onError: (err: unknown) => void): WriteLogReader;
  commit(partition: number, position: number): Promise<void>;
  committed(partition: number): Promise<number>;
  close(): Promise<void>;
}

/** WriteLogReader is one running `read`; stop ends delivery (no record is delivered after it resolves). */
export interface WriteLogReader {
  stop(): Promise<void>;
}
