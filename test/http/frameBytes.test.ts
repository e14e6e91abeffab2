import { describe, expect, it } from 'vitest';
import { releaseChunks } from '../../src/http/batchBuffers.js';
import { FrameBytesBatcher } from '../../src/http/frameBytes.js';
import { SeededRandom } from '../support/seededRandom.js';

describe('frame bytes batcher', () => {
  it('writes base64 exactly as Buffer does, for every length around its own loop\'s limit and padding', () => {
    const rng = new SeededRandom(5);
    for (let length = 0; length <= 1_100; length += length < 40 ? 1 : 37) {
      const data = Uint8Array.from({ length }, () => Math.floor(rng.next() * 256));
      // A view into a bigger buffer, as a column of a worker's answer is.
      const backing = new Uint8Array(length + 16);
      backing.set(data, 8);
      const view = backing.subarray(8, 8 + length);
      const out = new FrameBytesBatcher();
      out.room(8 * Math.ceil(length / 3) + 3);
      out.putAscii('<', 0, 1);
      out.putBase64(view);
      out.putAscii('|', 0, 1);
      // The same bytes given as a range of the whole backing array.
      out.putBase64(backing, 8, 8 + length);
      out.putAscii('>', 0, 1);
      out.ended();
      const batch = out.take();
      const expected = Buffer.from(data).toString('base64');
      expect(Buffer.from(batch!.framed as Uint8Array).toString('latin1')).toBe(`<${expected}|${expected}>`);
    }
  });

  it('reuses a batch\'s buffer once it is released, and never hands one buffer out twice', () => {
    const batchOf = (text: string): Uint8Array => {
      const out = new FrameBytesBatcher();
      out.room(text.length);
      out.putAscii(text, 0, text.length);
      out.ended();
      return out.take()!.framed as Uint8Array;
    };
    const first = batchOf('first');
    releaseChunks([first]);
    // A chunk released again (by mistake) must not put its buffer back a second time.
    releaseChunks([first]);
    const second = batchOf('second');
    const third = batchOf('third');
    expect(second.buffer).toBe(first.buffer);
    expect(third.buffer).not.toBe(second.buffer);
    expect(Buffer.from(second).toString()).toBe('second');
    expect(Buffer.from(third).toString()).toBe('third');
    // Strings and buffers made elsewhere are left alone.
    const foreign = Buffer.from('foreign');
    releaseChunks(['text', foreign]);
    expect(batchOf('fourth').buffer).not.toBe(foreign.buffer);
  });

  it('batches as much as it is told, and reuses a released buffer only for batches of its size', () => {
    const batches = (batchBytes: number, events: number): Uint8Array[] => {
      const out = new FrameBytesBatcher(batchBytes);
      const made: Uint8Array[] = [];
      for (let i = 0; i < events; i++) {
        out.room(1000);
        out.putAscii('x'.repeat(1000), 0, 1000);
        const full = out.ended();
        if (full) made.push(full.framed as Uint8Array);
      }
      const rest = out.take();
      if (rest) made.push(rest.framed as Uint8Array);
      return made;
    };
    const small = batches(64 * 1024, 200);
    const big = batches(256 * 1024, 600);
    // Each batch ends with the event that takes it to its size.
    expect(small.slice(0, -1).every((b) => b.length === 66_000)).toBe(true);
    expect(big.slice(0, -1).every((b) => b.length === 263_000)).toBe(true);
    releaseChunks(big);
    const again = batches(64 * 1024, 70);
    // A small batch never gets a big batch's buffer; a big one does.
    expect(again.some((b) => big.some((x) => x.buffer === b.buffer))).toBe(false);
    const bigAgain = batches(256 * 1024, 270);
    expect(bigAgain.some((b) => big.some((x) => x.buffer === b.buffer))).toBe(true);
    expect(Buffer.from(bigAgain[0]).toString()).toBe('x'.repeat(263_000));
  });
});
