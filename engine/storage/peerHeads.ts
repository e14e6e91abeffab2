import type { Signal } from './catalog.js';
import type { LogSource, MetricSource } from './orgViews.js';
import type { MetricMetadataRecord } from './walCodec.js';

/**
 * PeerHeads is an org's un-cut data as the processes holding it answered for one query: their
 * heads (read-only sources over the fetched snapshots), the bound that tells which catalog
 * segments those heads already include, and what could not be fetched.
 */
export interface PeerHeads {
  metrics: MetricSource[];
  logs: LogSource[];
  /**
   * segmentsBefore: segments whose seq is at or above it were cut after the heads were read, so
   * their data is in `metrics`/`logs` too and a read leaves them out. Undefined when no holder
   * answered (every segment is read).
   */
  segmentsBefore: number | undefined;
  /** unavailable describes each holder that did not answer: the answer lacks its recent data. */
  unavailable: string[];
  metadata: MetricMetadataRecord[];
}

/**
 * PeerHeadSource fetches an org's heads from the processes that hold them (ingesters, or a
 * process of role all). The service implements it over HTTP; the storage only asks.
 */
export interface PeerHeadSource {
  fetch(org: string, signal: Signal): Promise<PeerHeads>;
}
