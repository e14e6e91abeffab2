import { SAMPLE_CODEC_WASM } from '../common/sampleCodecWasm.js';
import { instantiateWasm, WASM_PAGE_BYTES, type WasmMemory } from '../common/webAssembly.js';
import type { BitReader } from './bitStream.js';
import { deltaOfDeltaInJavaScript, type DeltaOfDeltaLoop } from './timestampCodec.js';
import { VALUE_LOOPS_IN_JAVASCRIPT, type ValueLoops } from './valueCodec.js';

/**
 * The per-sample loops of decoding version 2 sample blocks, run by a WebAssembly module
 * (engine/wasm/sampleCodec.ts) where the runtime has one. Decoding is what a query over a
 * segment not yet in a worker's cache pays before it reads anything: the JavaScript XOR
 * decoder takes about 13 ns a sample because JavaScript has no 64-bit integers (every value
 * is two 32-bit halves, every field one or two word reads), which doubled the first query
 * over a cold segment against version 1's plain columns. The module works on one i64 per
 * value and one unaligned load per field.
 *
 * Each call copies the stream's words into the module's memory (a few bytes a sample) and
 * the decoded doubles out (eight), both single block copies.
 */
export interface SampleLoops {
  readonly values: ValueLoops;
  readonly deltaOfDelta: DeltaOfDeltaLoop;
}

interface SampleCodecExports {
  memory: WasmMemory;
  xorValues(input: number, limit: number, at: number, output: number, n: number): number;
  decimalMantissas(input: number, limit: number, at: number, output: number, from: number, n: number, m: number, delta: number, byDeltaOfDelta: boolean, scale: number): number;
  deltaOfDeltaTimes(input: number, limit: number, at: number, output: number, n: number, t: number, delta: number): number;
}

/** The module reads up to 78 bits past a sample's start (and loads 8 bytes at a time): zero padding after each stream keeps those reads on zeros. */
const PADDING_BYTES = 32;
/**
 * MAX_MODULE_BYTES bounds the module's memory, which never shrinks: a series whose stream and
 * doubles need more (some four million samples in one block) is decoded by the JavaScript
 * loops instead of keeping that much memory in every thread that once decoded it. It also
 * keeps bit positions far inside the module's 32 bits.
 */
const MAX_MODULE_BYTES = 64 * 2 ** 20;

/** Codes the module returns instead of a bit position. */
const RAN_PAST = -1;
const BAD_WINDOW = -2;

class SampleLoopsModule implements SampleLoops {
  private words = new Uint32Array(0);
  private doubles = new Float64Array(0);
  /** The copied stream's length in bits (it starts at byte 0 of the module's memory), and the byte where its doubles go. */
  private limitBits = 0;
  private output = 0;

  readonly values: ValueLoops = {
    xor: (input, out) => {
      if (!this.load(input, out.length)) return VALUE_LOOPS_IN_JAVASCRIPT.xor(input, out);
      const at = this.at(input);
      // The first value's bits go over as two words: a NaN's payload (a staleness marker) must survive.
      const first = new Uint32Array(out.buffer, out.byteOffset, 2);
      this.words[this.output / 4] = first[0];
      this.words[this.output / 4 + 1] = first[1];
      this.finish(input, this.x.xorValues(0, this.limitBits, at, this.output, out.length), out, 1);
    },
    decimal: (input, out, from, m, delta, byDeltaOfDelta, scale) => {
      if (!this.load(input, out.length)) return VALUE_LOOPS_IN_JAVASCRIPT.decimal(input, out, from, m, delta, byDeltaOfDelta, scale);
      const at = this.at(input);
      this.finish(input, this.x.decimalMantissas(0, this.limitBits, at, this.output, from, out.length, m, delta, byDeltaOfDelta, scale), out, from);
    },
  };

  readonly deltaOfDelta: DeltaOfDeltaLoop = (input, out, t, delta) => {
    if (!this.load(input, out.length)) return deltaOfDeltaInJavaScript(input, out, t, delta);
    const at = this.at(input);
    this.finish(input, this.x.deltaOfDeltaTimes(0, this.limitBits, at, this.output, out.length, t, delta), out, 2);
  };

  constructor(private readonly x: SampleCodecExports) {}

  /** firstWord is the word holding the input's next bit: the copy starts there. */
  private firstWord(input: BitReader): number {
    return input.position >>> 5;
  }

  private at(input: BitReader): number {
    return input.position & 31;
  }

  /**
   * load copies the input's words from its position on to the start of the module's memory,
   * zero padding after them and room for `count` doubles, growing the memory as needed;
   * false when that would take the memory past MAX_MODULE_BYTES.
   */
  private load(input: BitReader, count: number): boolean {
    const stream = input.words.subarray(this.firstWord(input));
    const output = Math.ceil((stream.length * 4 + PADDING_BYTES) / 8) * 8;
    const needed = output + count * 8;
    if (needed > MAX_MODULE_BYTES) return false;
    this.output = output;
    const memory = this.x.memory;
    if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / WASM_PAGE_BYTES));
    if (this.words.buffer !== memory.buffer) {
      this.words = new Uint32Array(memory.buffer);
      this.doubles = new Float64Array(memory.buffer);
    }
    this.words.set(stream);
    this.words.fill(0, stream.length, this.output / 4);
    this.limitBits = stream.length * 32;
    return true;
  }

  /** finish checks the module's result, copies doubles [from, n) out and moves the input past what was read. */
  private finish(input: BitReader, result: number, out: Float64Array, from: number): void {
    if (result === RAN_PAST || result > this.limitBits) throw new RangeError('sample stream runs past its block');
    if (result === BAD_WINDOW) throw new RangeError('value stream has an impossible XOR window');
    const first = this.output / 8;
    out.set(this.doubles.subarray(first + from, first + out.length), from);
    input.position = this.firstWord(input) * 32 + result;
  }
}

const IN_JAVASCRIPT: SampleLoops = { values: VALUE_LOOPS_IN_JAVASCRIPT, deltaOfDelta: deltaOfDeltaInJavaScript };

let loaded: SampleLoops | undefined;

/** sampleLoops are this thread's decoding loops: the module, or JavaScript's where WebAssembly is off. */
export function sampleLoops(): SampleLoops {
  if (loaded === undefined) {
    const exports = instantiateWasm<SampleCodecExports>(SAMPLE_CODEC_WASM);
    loaded = exports === undefined ? IN_JAVASCRIPT : new SampleLoopsModule(exports);
  }
  return loaded;
}

/** sampleLoopsInJavaScript are the reference loops, for tests and benchmarks to compare against. */
export function sampleLoopsInJavaScript(): SampleLoops {
  return IN_JAVASCRIPT;
}
