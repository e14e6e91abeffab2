import type { SharedLogChunk } from './logChunk.js';
import type { LogHeadSnapshot } from './logHeadSnapshots.js';
import type { SharedMetricChunk } from './metricChunk.js';
import type { MetricHeadSnapshot } from './metricHeadSnapshots.js';
import type { MetricMetadataRecord } from './walCodec.js';

/**
 * The head wire format carries an org's head snapshots from the process that holds the heads
 * to a query process, as the bytes the holder's workers read: every snapshot chunk is one
 * SharedArrayBuffer (metricChunk.ts, logChunk.ts), sent whole, and the receiver copies it into
 * a SharedArrayBuffer of its own and rebuilds the typed-array views at the same offsets. The
 * receiver's workers then read it exactly as the holder's would, and nothing is re-encoded
 * on either side.
 *
 * Layout: the magic `SLHD`, a format byte, a little-endian u32 header length, the header as
 * UTF-8 JSON (HeadWireHeader), then each chunk's bytes in the header's order.
 */

const MAGIC = 'SLHD';
const FORMAT = 1;

/** HeadPositions is, for one write-log partition, what the holder's segments cover and what its heads hold up to. */
export interface HeadPositions {
  /** coveredThrough: the last position the catalog's segments cover (records after it are in the heads). */
  coveredThrough: number;
  /** appliedThrough: the last position applied to the heads. */
  appliedThrough: number;
}

/** HeadExport is what a head holder answers for one org at one moment. */
export interface HeadExport {
  metrics: MetricHeadSnapshot[];
  logs: LogHeadSnapshot[];
  /**
   * segmentsBefore is the first segment id the holder had not committed when the heads were
   * read: every segment it cut before that moment has a smaller seq and its data is no longer
   * in the heads; one of its segments with a seq at or above it was cut later, from data these
   * heads still hold. A sole writer gives its catalog's next id; a holder among several gives
   * the next id of its own reserved block, and `writer`.
   */
  segmentsBefore: number;
  /** writer is the holder's writer id (meta.writer of its segments) when several processes write the catalog. */
  writer?: string;
  /** partitions maps each write-log partition the heads hold to its positions; undefined with the embedded WAL (no partitions). */
  partitions: Record<string, HeadPositions> | undefined;
  /** metadata is the org's metric metadata (TYPE, HELP, UNIT) as the holder knows it. */
  metadata: MetricMetadataRecord[];
}

type FieldKind = 'u8' | 'u32' | 'f64' | 'i64';

/** FieldLayout is one typed-array field of a chunk: its kind, byte offset and element count. */
type FieldLayout = [FieldKind, number, number];

interface ChunkHeader {
  id: string;
  /** reused: the receiver said it holds this chunk already, so its bytes are not sent (sealed chunks never change). */
  reused?: true;
  bytes: number;
  fields: Record<string, FieldLayout>;
  /** scalars are the chunk's plain fields; bigint ones travel as decimal strings. */
  scalars: Record<string, number | string | boolean>;
}

interface HeadWireHeader {
  segmentsBefore: number;
  writer?: string;
  partitions: Record<string, HeadPositions> | null;
  metadata: MetricMetadataRecord[];
  metrics: ChunkHeader[][];
  logs: ChunkHeader[][];
}

const METRIC_FIELDS = {
  refs: 'u32',
  offsets: 'u32',
  timestampsMs: 'f64',
  values: 'f64',
  labels: 'u8',
  histogramOffsets: 'u32',
  histogramBytes: 'u8',
} as const satisfies Record<string, FieldKind>;

const LOG_FIELDS = {
  timestampsNs: 'i64',
  groups: 'u32',
  lineOffsets: 'u32',
  text: 'u8',
  groupTags: 'u8',
} as const satisfies Record<string, FieldKind>;

type TypedArray = Uint8Array | Uint32Array | Float64Array | BigInt64Array;

function layoutOf(chunk: object, fields: Record<string, FieldKind>): { buffer: ArrayBufferLike; layout: Record<string, FieldLayout> } {
  let buffer: ArrayBufferLike | undefined;
  const layout: Record<string, FieldLayout> = {};
  for (const [name, kind] of Object.entries(fields)) {
    const array = (chunk as Record<string, TypedArray>)[name];
    if (buffer !== undefined && array.buffer !== buffer) throw new Error(`chunk field ${name} is not in the chunk's buffer`);
    buffer = array.buffer;
    layout[name] = [kind, array.byteOffset, array.length];
  }
  return { buffer: buffer!, layout };
}

function view(kind: FieldKind, buffer: SharedArrayBuffer, offset: number, length: number): TypedArray {
  switch (kind) {
    case 'u8':
      return new Uint8Array(buffer, offset, length);
    case 'u32':
      return new Uint32Array(buffer, offset, length);
    case 'f64':
      return new Float64Array(buffer, offset, length);
    case 'i64':
      return new BigInt64Array(buffer, offset, length);
  }
}

/** HeadWireChunk is a chunk's header and its buffer, for encoding. */
interface Encoded {
  header: ChunkHeader;
  bytes: Uint8Array;
}

function encodeMetricChunk(chunk: SharedMetricChunk, idPrefix: string): Encoded {
  const { buffer, layout } = layoutOf(chunk, METRIC_FIELDS);
  const bytes = new Uint8Array(buffer);
  return {
    header: { id: idPrefix + chunk.id, bytes: bytes.byteLength, fields: layout, scalars: { samples: chunk.samples, minMs: chunk.minMs, maxMs: chunk.maxMs } },
    bytes,
  };
}

function encodeLogChunk(chunk: SharedLogChunk, idPrefix: string): Encoded {
  const { buffer, layout } = layoutOf(chunk, LOG_FIELDS);
  const bytes = new Uint8Array(buffer);
  return {
    header: {
      id: idPrefix + chunk.id,
      bytes: bytes.byteLength,
      fields: layout,
      scalars: { rows: chunk.rows, minNs: chunk.minNs.toString(), maxNs: chunk.maxNs.toString(), inOrder: chunk.inOrder },
    },
    bytes,
  };
}

/**
 * encodeHeadExport writes an export in the wire format. `idPrefix` is put before every chunk
 * id: ids are unique only within the holder's process, and a query process's workers key what
 * they decode by id, so the prefix names the holder. Chunks whose (prefixed) id is in `have`
 * are named but not sent: the receiver kept them from an earlier answer.
 */
export function encodeHeadExport(data: HeadExport, idPrefix: string, have: ReadonlySet<string> = new Set()): Buffer[] {
  const reuse = (id: string): Encoded | undefined => (have.has(id) ? { header: { id, reused: true, bytes: 0, fields: {}, scalars: {} }, bytes: new Uint8Array(0) } : undefined);
  const metrics = data.metrics.map((s) => s.chunks.map((c) => reuse(idPrefix + c.id) ?? encodeMetricChunk(c, idPrefix)));
  const logs = data.logs.map((s) => s.chunks.map((c) => reuse(idPrefix + c.id) ?? encodeLogChunk(c, idPrefix)));
  const header: HeadWireHeader = {
    segmentsBefore: data.segmentsBefore,
    ...(data.writer !== undefined ? { writer: data.writer } : {}),
    partitions: data.partitions ?? null,
    metadata: data.metadata,
    metrics: metrics.map((s) => s.map((c) => c.header)),
    logs: logs.map((s) => s.map((c) => c.header)),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(9);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt8(FORMAT, 4);
  prefix.writeUInt32LE(headerBytes.length, 5);
  const parts: Buffer[] = [prefix, headerBytes];
  for (const c of [...metrics.flat(), ...logs.flat()]) parts.push(Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.byteLength));
  return parts;
}

/** encodedLength is the size of an encoding made by encodeHeadExport. */
export function encodedLength(parts: readonly Buffer[]): number {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
}

/** HeadWireError means bytes are not a head export this build reads. */
export class HeadWireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeadWireError';
  }
}

function checkLayout(header: ChunkHeader, fields: Record<string, FieldKind>): void {
  for (const [name, kind] of Object.entries(fields)) {
    const f = header.fields?.[name];
    if (!Array.isArray(f) || f[0] !== kind || !Number.isInteger(f[1]) || !Number.isInteger(f[2]) || f[1] < 0 || f[2] < 0) {
      throw new HeadWireError(`chunk ${String(header.id)}: field ${name} is missing or malformed`);
    }
    const width = kind === 'u8' ? 1 : kind === 'u32' ? 4 : 8;
    if (f[1] % width !== 0 || f[1] + f[2] * width > header.bytes) throw new HeadWireError(`chunk ${header.id}: field ${name} lies outside the chunk`);
  }
}

/** copyShared copies a part of the input into a fresh SharedArrayBuffer, as the holder's chunk was. */
function copyShared(input: Uint8Array, at: number, length: number): SharedArrayBuffer {
  const shared = new SharedArrayBuffer(length);
  new Uint8Array(shared).set(input.subarray(at, at + length));
  return shared;
}

function decodeMetricChunk(header: ChunkHeader, buffer: SharedArrayBuffer): SharedMetricChunk {
  checkLayout(header, METRIC_FIELDS);
  const f = header.fields;
  const at = (name: keyof typeof METRIC_FIELDS) => view(f[name][0], buffer, f[name][1], f[name][2]);
  return {
    id: header.id,
    samples: Number(header.scalars.samples),
    minMs: Number(header.scalars.minMs),
    maxMs: Number(header.scalars.maxMs),
    refs: at('refs') as Uint32Array,
    offsets: at('offsets') as Uint32Array,
    timestampsMs: at('timestampsMs') as Float64Array,
    values: at('values') as Float64Array,
    labels: at('labels') as Uint8Array,
    histogramOffsets: at('histogramOffsets') as Uint32Array,
    histogramBytes: at('histogramBytes') as Uint8Array,
  };
}

function decodeLogChunk(header: ChunkHeader, buffer: SharedArrayBuffer): SharedLogChunk {
  checkLayout(header, LOG_FIELDS);
  const f = header.fields;
  const at = (name: keyof typeof LOG_FIELDS) => view(f[name][0], buffer, f[name][1], f[name][2]);
  return {
    id: header.id,
    rows: Number(header.scalars.rows),
    minNs: BigInt(String(header.scalars.minNs)),
    maxNs: BigInt(String(header.scalars.maxNs)),
    inOrder: header.scalars.inOrder === true,
    timestampsNs: at('timestampsNs') as BigInt64Array,
    groups: at('groups') as Uint32Array,
    lineOffsets: at('lineOffsets') as Uint32Array,
    text: at('text') as Uint8Array,
    groupTags: at('groupTags') as Uint8Array,
  };
}

/** KnownChunks finds chunks the receiver kept from earlier answers, by id. */
export interface KnownChunks {
  metric(id: string): SharedMetricChunk | undefined;
  log(id: string): SharedLogChunk | undefined;
}

const NONE_KNOWN: KnownChunks = { metric: () => undefined, log: () => undefined };

/**
 * decodeHeadExport reads the wire format back, taking chunks the holder did not resend from
 * `known`; malformed input is a HeadWireError, never a wild read.
 */
export function decodeHeadExport(input: Uint8Array, known: KnownChunks = NONE_KNOWN): HeadExport {
  const buf = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (buf.length < 9 || buf.toString('latin1', 0, 4) !== MAGIC) throw new HeadWireError('not a head export');
  if (buf.readUInt8(4) !== FORMAT) throw new HeadWireError(`unsupported head export format ${buf.readUInt8(4)}`);
  const headerLength = buf.readUInt32LE(5);
  if (9 + headerLength > buf.length) throw new HeadWireError('head export header is cut short');
  let header: HeadWireHeader;
  try {
    header = JSON.parse(buf.toString('utf8', 9, 9 + headerLength)) as HeadWireHeader;
  } catch (err) {
    throw new HeadWireError(`head export header is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(header.metrics) || !Array.isArray(header.logs) || typeof header.segmentsBefore !== 'number' || (header.writer !== undefined && typeof header.writer !== 'string')) throw new HeadWireError('head export header is malformed');
  let at = 9 + headerLength;
  const take = (h: ChunkHeader): SharedArrayBuffer => {
    if (!Number.isInteger(h.bytes) || h.bytes < 0 || at + h.bytes > buf.length) throw new HeadWireError(`chunk ${String(h.id)} is cut short`);
    const shared = copyShared(buf, at, h.bytes);
    at += h.bytes;
    return shared;
  };
  const kept = <C>(h: ChunkHeader, found: C | undefined): C => {
    if (found === undefined) throw new HeadWireError(`chunk ${String(h.id)} was not sent and is not known here`);
    return found;
  };
  const metrics = header.metrics.map((chunks) => ({ chunks: chunks.map((h) => (h.reused ? kept(h, known.metric(h.id)) : decodeMetricChunk(h, take(h)))) }));
  const logs = header.logs.map((chunks) => ({ chunks: chunks.map((h) => (h.reused ? kept(h, known.log(h.id)) : decodeLogChunk(h, take(h)))) }));
  if (at !== buf.length) throw new HeadWireError('head export has trailing bytes');
  return { metrics, logs, segmentsBefore: header.segmentsBefore, ...(header.writer !== undefined ? { writer: header.writer } : {}), partitions: header.partitions ?? undefined, metadata: Array.isArray(header.metadata) ? header.metadata : [] };
}

/**
 * pruneHeadExport leaves out chunks wholly outside [minMs, maxMs]: readers select by time
 * anyway, so what is dropped could never be read. Chunks are never cut, so their bytes stay
 * the holder's.
 */
export function pruneHeadExport(data: HeadExport, minMs: number, maxMs: number): HeadExport {
  const minNs = Number.isFinite(minMs) ? BigInt(Math.floor(minMs)) * 1_000_000n : undefined;
  const maxNs = Number.isFinite(maxMs) ? BigInt(Math.ceil(maxMs)) * 1_000_000n + 999_999n : undefined;
  return {
    ...data,
    metrics: data.metrics.map((s) => ({ chunks: s.chunks.filter((c) => c.maxMs >= minMs && c.minMs <= maxMs) })).filter((s) => s.chunks.length > 0),
    logs: data.logs.map((s) => ({ chunks: s.chunks.filter((c) => (minNs === undefined || c.maxNs >= minNs) && (maxNs === undefined || c.minNs <= maxNs)) })).filter((s) => s.chunks.length > 0),
  };
}
