import { FLOAT_TEXT_WASM } from './floatTextWasm.js';
import { formatGoFloat } from './goFloat.js';
import { instantiateWasm } from './webAssembly.js';

/**
 * Doubles written as text in batches by a small WebAssembly module (engine/wasm/floatText.ts),
 * byte for byte as JavaScript's `'' + v` and Go's strconv.FormatFloat(v, 'f', -1, 64) print
 * them. Turning numbers into text was a quarter of a worker's time on answers of many points
 * (about 170 ns a value in JavaScript, a string made for each); the module takes about a third
 * of that and writes bytes straight into its memory, which the caller copies out in one piece.
 * Each thread instantiates the module once, on first use.
 */

/**
 * FloatTextBatch is the text of items [from, from + written) of a call: `text` holds it, item
 * i's text starts at `at[i - from]` and `at[written]` is text's length. Both are views of the
 * module's memory, valid until the next call on this thread.
 */
export interface FloatTextBatch {
  written: number;
  text: Uint8Array;
  at: Uint32Array;
}

/** FloatTextWriter writes a column's text in batches: the module, or JavaScript where WebAssembly is off. */
export interface FloatTextWriter {
  /** samples writes `[seconds,"value"],` for points [from, to) as the Prometheus API renders them (at least one when from < to). */
  samples(timestampsMs: Float64Array, values: Float64Array, from: number, to: number): FloatTextBatch;
  /** values writes each of values [from, to) as JavaScript prints it followed by a comma; NaN and infinities as the comma alone. */
  values(values: Float64Array, from: number, to: number): FloatTextBatch;
}

interface FloatTextExports {
  memory: { buffer: ArrayBuffer };
  layout(region: number): number;
  init(): void;
  samples(count: number): number;
  values(count: number): number;
}

/** Region numbers of the module's `layout` export. */
const REGION = { tableEnd: 0, values: 1, times: 2, at: 3, out: 4, chunk: 6 } as const;
/** The module's table covers the decimal exponents of doubles, k in [K_MIN, K_MAX], 24 bytes each. */
const K_MIN = -324;
const K_MAX = 292;
const TABLE_ENTRY_BYTES = 24;

class FloatTextModule implements FloatTextWriter {
  private readonly exports: FloatTextExports;
  private readonly chunk: number;
  private readonly valuesIn: Float64Array;
  private readonly timesIn: Float64Array;
  private readonly atOut: Uint32Array;
  private readonly bytes: Uint8Array;
  private readonly out: number;

  constructor(exports: FloatTextExports) {
    this.exports = exports;
    const x = exports;
    x.init();
    const buffer = x.memory.buffer;
    if (x.layout(REGION.tableEnd) !== (K_MAX - K_MIN + 1) * TABLE_ENTRY_BYTES) throw new Error('the float text module was built for another table');
    writePowersOfTen(new DataView(buffer));
    this.chunk = x.layout(REGION.chunk);
    this.valuesIn = new Float64Array(buffer, x.layout(REGION.values), this.chunk);
    this.timesIn = new Float64Array(buffer, x.layout(REGION.times), this.chunk);
    this.atOut = new Uint32Array(buffer, x.layout(REGION.at), this.chunk + 1);
    this.bytes = new Uint8Array(buffer);
    this.out = x.layout(REGION.out);
  }

  samples(timestampsMs: Float64Array, values: Float64Array, from: number, to: number): FloatTextBatch {
    const count = Math.min(to - from, this.chunk);
    this.valuesIn.set(values.subarray(from, from + count));
    this.timesIn.set(timestampsMs.subarray(from, from + count));
    return this.batch(this.exports.samples(count));
  }

  values(values: Float64Array, from: number, to: number): FloatTextBatch {
    const count = Math.min(to - from, this.chunk);
    this.valuesIn.set(values.subarray(from, from + count));
    return this.batch(this.exports.values(count));
  }

  private batch(written: number): FloatTextBatch {
    const at = this.atOut.subarray(0, written + 1);
    return { written, text: this.bytes.subarray(this.out, this.out + at[written]), at };
  }
}

/**
 * writePowersOfTen fills the module's table: for each k, 10^-k as a 126-bit integer g with
 * 2^125 <= g < 2^126, g = floor(10^-k · 2^(125 - e)) + 1 where e = floor(log2(10^-k)), split
 * into its upper and lower 63 bits, then e.
 */
function writePowersOfTen(view: DataView): void {
  const low63 = (1n << 63n) - 1n;
  for (let k = K_MIN; k <= K_MAX; k++) {
    let g: bigint;
    let e: number;
    if (k <= 0) {
      const power = 10n ** BigInt(-k);
      e = bitLength(power) - 1;
      g = (e >= 125 ? power >> BigInt(e - 125) : power << BigInt(125 - e)) + 1n;
    } else {
      const divisor = 10n ** BigInt(k);
      // 10^k is not a power of two, so log2(10^-k) rounds down to minus its bit length.
      e = -bitLength(divisor);
      g = (1n << BigInt(125 - e)) / divisor + 1n;
    }
    const at = (k - K_MIN) * TABLE_ENTRY_BYTES;
    view.setBigUint64(at, g >> 63n, true);
    view.setBigUint64(at + 8, g & low63, true);
    view.setBigInt64(at + 16, BigInt(e), true);
  }
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/**
 * eachBatch hands every batch of items [0, count) to `take`, in order, with the index of its
 * first item: `make(from)` writes the batch that starts at `from` (a FloatTextModule call).
 */
export function eachBatch(count: number, make: (from: number) => FloatTextBatch, take: (batch: FloatTextBatch, from: number) => void): void {
  for (let from = 0; from < count; ) {
    const batch = make(from);
    take(batch, from);
    from += batch.written;
  }
}

/**
 * FloatTextInJavaScript writes the same text with JavaScript's own conversions, a string per
 * value, for a runtime without WebAssembly (`node --jitless`): slower, never different.
 */
export class FloatTextInJavaScript implements FloatTextWriter {
  private bytes = Buffer.allocUnsafe(64 * JS_BATCH_ITEMS);
  private readonly at = new Uint32Array(JS_BATCH_ITEMS + 1);

  samples(timestampsMs: Float64Array, values: Float64Array, from: number, to: number): FloatTextBatch {
    return this.batch(from, to, (i) => `[${timestampsMs[i] / 1000},"${formatGoFloat(values[i])}"],`);
  }

  values(values: Float64Array, from: number, to: number): FloatTextBatch {
    return this.batch(from, to, (i) => (Number.isFinite(values[i]) ? `${values[i]},` : ','));
  }

  private batch(from: number, to: number, textOf: (i: number) => string): FloatTextBatch {
    const written = Math.min(to - from, JS_BATCH_ITEMS);
    let length = 0;
    for (let i = 0; i < written; i++) {
      const text = textOf(from + i);
      if (this.bytes.length - length < text.length) {
        const grown = Buffer.allocUnsafe(2 * (length + text.length));
        this.bytes.copy(grown, 0, 0, length);
        this.bytes = grown;
      }
      this.at[i] = length;
      length += this.bytes.write(text, length, 'latin1');
    }
    this.at[written] = length;
    return { written, text: this.bytes.subarray(0, length), at: this.at.subarray(0, written + 1) };
  }
}

/** JS_BATCH_ITEMS is how many items FloatTextInJavaScript writes per call. */
const JS_BATCH_ITEMS = 8192;

let loaded: FloatTextWriter | undefined;

/** floatText is this thread's writer: the module, or FloatTextInJavaScript where WebAssembly is off. */
export function floatText(): FloatTextWriter {
  if (loaded === undefined) {
    const exports = instantiateWasm<FloatTextExports>(FLOAT_TEXT_WASM);
    loaded = exports === undefined ? new FloatTextInJavaScript() : new FloatTextModule(exports);
  }
  return loaded;
}
