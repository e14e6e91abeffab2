import { markContainingByOffsets } from './lineMatch.js';
import {
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Uint32,
  Utf8,
  makeData,
  makeVector,
  tableFromIPC,
  tableToIPC,
  type Data,
  type DataType,
} from 'apache-arrow';
import { SegmentFormatError } from './segmentFormat.js';

/**
 * Helpers that build Arrow columns straight from typed arrays and read them back as typed
 * array views, so neither writing nor reading a segment goes through Arrow's per-value
 * builders or `Vector.get` (which is many times slower than indexing a typed array).
 */

/** ColumnSpec is one column of a table to write: its name and its already-built data. */
export interface ColumnSpec {
  name: string;
  data: Data;
}

export function float64Data(values: Float64Array): Data<Float64> {
  return makeData({ type: new Float64(), length: values.length, nullCount: 0, data: values });
}

export function uint32Data(values: Uint32Array): Data<Uint32> {
  return makeData({ type: new Uint32(), length: values.length, nullCount: 0, data: values });
}

export function int64Data(values: BigInt64Array): Data<Int64> {
  return makeData({ type: new Int64(), length: values.length, nullCount: 0, data: values });
}

/** Utf8Buffers is a string column as Arrow lays it out: n+1 offsets into one UTF-8 byte buffer. */
export interface Utf8Buffers {
  offsets: Int32Array;
  bytes: Uint8Array;
}

/** MAX_UTF8_BYTES is the most a Utf8 column (32-bit offsets) can hold. */
const MAX_UTF8_BYTES = 0x7fffffff;

/** encodeUtf8 packs strings into offsets and bytes with one allocation for the bytes. */
export function encodeUtf8(strings: readonly string[]): Utf8Buffers {
  const offsets = new Int32Array(strings.length + 1);
  let total = 0;
  for (let i = 0; i < strings.length; i++) {
    offsets[i] = total;
    total += Buffer.byteLength(strings[i], 'utf8');
    if (total > MAX_UTF8_BYTES) throw new RangeError('string column exceeds 2 GiB');
  }
  offsets[strings.length] = total;
  const bytes = new Uint8Array(total);
  const writer = Buffer.from(bytes.buffer, 0, total);
  for (let i = 0; i < strings.length; i++) writer.write(strings[i], offsets[i], 'utf8');
  return { offsets, bytes };
}

export function utf8Data(strings: readonly string[]): Data<Utf8> {
  const { offsets, bytes } = encodeUtf8(strings);
  return makeData({ type: new Utf8(), length: strings.length, nullCount: 0, valueOffsets: offsets, data: bytes });
}

/**
 * dictionaryUtf8Data builds a dictionary-encoded string column. Each dictionary column of a
 * schema needs its own `id`, or the IPC writer would merge their dictionaries.
 */
export function dictionaryUtf8Data(indices: Int32Array, dictionary: readonly string[], id: number): Data<Dictionary<Utf8, Int32>> {
  const type = new Dictionary(new Utf8(), new Int32(), id, false);
  return makeData({ type, length: indices.length, nullCount: 0, data: indices, dictionary: makeVector(utf8Data(dictionary)) });
}

/** tableToFileBytes writes the columns as one record batch in the Arrow IPC file format. */
export function tableToFileBytes(columns: readonly ColumnSpec[], metadata?: ReadonlyMap<string, string>): Uint8Array {
  const length = columns.length === 0 ? 0 : columns[0].data.length;
  for (const c of columns) if (c.data.length !== length) throw new RangeError(`column ${c.name} has ${c.data.length} rows, expected ${length}`);
  const fields = columns.map((c) => new Field(c.name, c.data.type as DataType, false));
  const schema = new Schema(fields, metadata ? new Map(metadata) : undefined);
  const children = columns.map((c) => c.data);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length, nullCount: 0, children }));
  return tableToIPC(new Table([batch]), 'file');
}

/**
 * ArrowSection is one decoded Arrow file of a segment: its columns by name, each the single
 * chunk of the single record batch our writer produces, plus the schema's metadata.
 */
export class ArrowSection {
  private constructor(
    private readonly columns: ReadonlyMap<string, Data>,
    readonly rows: number,
    readonly metadata: ReadonlyMap<string, string>,
  ) {}

  /** parse reads an Arrow IPC file without copying its buffers; anything unexpected is a SegmentFormatError. */
  static parse(bytes: Uint8Array, what: string): ArrowSection {
    let table: Table;
    try {
      table = tableFromIPC(bytes);
    } catch (err) {
      throw new SegmentFormatError(`${what}: not a readable Arrow file (${err instanceof Error ? err.message : String(err)})`);
    }
    if (table.batches.length !== 1) throw new SegmentFormatError(`${what}: expected one record batch, found ${table.batches.length}`);
    const columns = new Map<string, Data>();
    for (const field of table.schema.fields) {
      const chunks = table.getChild(field.name)?.data ?? [];
      if (chunks.length !== 1) throw new SegmentFormatError(`${what}: column ${field.name} has ${chunks.length} chunks`);
      if (chunks[0].nullCount > 0) throw new SegmentFormatError(`${what}: column ${field.name} has nulls`);
      columns.set(field.name, chunks[0]);
    }
    return new ArrowSection(columns, table.numRows, table.schema.metadata);
  }

  private column(name: string, typeId: string): Data {
    const data = this.columns.get(name);
    if (data === undefined) throw new SegmentFormatError(`missing column ${name}`);
    if (String(data.type) !== typeId) throw new SegmentFormatError(`column ${name} is ${String(data.type)}, expected ${typeId}`);
    return data;
  }

  float64(name: string): Float64Array {
    const d = this.column(name, 'Float64');
    return (d.values as Float64Array).subarray(d.offset, d.offset + d.length);
  }

  uint32(name: string): Uint32Array {
    const d = this.column(name, 'Uint32');
    return (d.values as Uint32Array).subarray(d.offset, d.offset + d.length);
  }

  int64(name: string): BigInt64Array {
    const d = this.column(name, 'Int64');
    return (d.values as BigInt64Array).subarray(d.offset, d.offset + d.length);
  }

  /** utf8 returns offsets (n+1, absolute into `bytes`) and the byte buffer of a string column. */
  utf8(name: string): Utf8Buffers {
    const d = this.column(name, 'Utf8');
    const offsets = (d.valueOffsets as Int32Array).subarray(d.offset, d.offset + d.length + 1);
    return { offsets, bytes: d.values as Uint8Array };
  }

  /** strings decodes a whole string column; meant for small tables (series and stream tables). */
  strings(name: string): string[] {
    return decodeAll(this.utf8(name));
  }

  /** dictionary returns a dictionary column's indices and its decoded dictionary. */
  dictionary(name: string): { indices: Int32Array; values: string[] } {
    const d = this.column(name, 'Dictionary<Int32, Utf8>');
    const indices = (d.values as Int32Array).subarray(d.offset, d.offset + d.length);
    const dict = d.dictionary;
    if (dict === undefined || dict.data.length !== 1) throw new SegmentFormatError(`column ${name} has no usable dictionary`);
    const dictData = dict.data[0] as Data<Utf8>;
    const values = decodeAll({ offsets: (dictData.valueOffsets as Int32Array).subarray(dictData.offset, dictData.offset + dictData.length + 1), bytes: dictData.values as Uint8Array });
    for (let i = 0; i < indices.length; i++) {
      if (indices[i] < 0 || indices[i] >= values.length) throw new SegmentFormatError(`column ${name}: index out of dictionary range`);
    }
    return { indices, values };
  }
}

/** Utf8Reader reads single values of a string column; Buffer#toString is the fastest UTF-8 decode Node offers. */
export class Utf8Reader {
  private readonly text: Buffer;

  constructor(private readonly column: Utf8Buffers) {
    this.text = Buffer.from(column.bytes.buffer, column.bytes.byteOffset, column.bytes.byteLength);
  }

  get(i: number): string {
    return this.text.toString('utf8', this.column.offsets[i], this.column.offsets[i + 1]);
  }

  /** markContaining marks in `hits` (offset 0 = row `from`) the rows of [from, end) whose text contains `needle`. */
  markContaining(from: number, end: number, needle: Buffer, hits: Uint8Array): void {
    markContainingByOffsets(this.text, this.column.offsets, from, end, needle, hits);
  }
}

function decodeAll(column: Utf8Buffers): string[] {
  const reader = new Utf8Reader(column);
  const out = new Array<string>(column.offsets.length - 1);
  for (let i = 0; i < out.length; i++) out[i] = reader.get(i);
  return out;
}
