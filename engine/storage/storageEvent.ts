/**
 * StorageEvent is something the storage reports to its owner's log: a damaged WAL tail, a
 * segment that could not be read, a finished cut. The storage never logs by itself, so the
 * engine stays free of the service's logger.
 */
export interface StorageEvent {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

/** EventSink receives storage events. */
export type EventSink = (event: StorageEvent) => void;
