import { crc32, inflateSync } from 'node:zlib';

/**
 * A small PNG decoder for tests that need to look at rendered images: 8-bit greyscale, RGB,
 * palette, greyscale-alpha and RGBA, not interlaced (what image encoders write by default).
 * Pixels come out as RGBA, row by row. Chunk checksums are verified, so a truncated or
 * corrupted file fails loudly instead of decoding to noise.
 */

export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

export interface DecodedPng {
  width: number;
  height: number;
  bitDepth: number;
  /** colorType is IHDR's: 0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA. */
  colorType: number;
  /** rgba holds width * height pixels, four bytes each. */
  rgba: Uint8Array;
}

interface Chunk {
  type: string;
  data: Buffer;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function decodePng(bytes: Uint8Array): DecodedPng {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG: bad signature');
  const chunks = readChunks(buf);
  if (chunks[0]?.type !== 'IHDR') throw new Error('PNG does not start with IHDR');
  const ihdr = chunks[0].data;
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const [bitDepth, colorType, , , interlace] = ihdr.subarray(8, 13);
  const channels = CHANNELS[colorType];
  if (channels === undefined) throw new Error(`PNG colour type ${colorType} is not valid`);
  if (bitDepth !== 8) throw new Error(`PNG bit depth ${bitDepth} is not supported by this decoder`);
  if (interlace !== 0) throw new Error('interlaced PNGs are not supported by this decoder');
  const idat = Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data));
  const raw = unfilter(inflateSync(idat), width, height, channels);
  const palette = chunks.find((c) => c.type === 'PLTE')?.data;
  const alpha = chunks.find((c) => c.type === 'tRNS')?.data;
  return { width, height, bitDepth, colorType, rgba: toRgba(raw, colorType, palette, alpha) };
}

function readChunks(buf: Buffer): Chunk[] {
  const chunks: Chunk[] = [];
  let pos = 8;
  while (pos + 12 <= buf.length) {
    const length = buf.readUInt32BE(pos);
    const end = pos + 12 + length;
    if (end > buf.length) throw new Error('PNG chunk runs past the end of the file');
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + length);
    if (crc32(buf.subarray(pos + 4, pos + 8 + length)) !== buf.readUInt32BE(pos + 8 + length)) throw new Error(`PNG chunk ${type} has a bad CRC`);
    chunks.push({ type, data });
    pos = end;
    if (type === 'IEND') return chunks;
  }
  throw new Error('PNG has no IEND chunk');
}

/** unfilter undoes each scanline's filter (none, sub, up, average, Paeth) in place of a copy. */
function unfilter(data: Buffer, width: number, height: number, bpp: number): Uint8Array {
  const stride = width * bpp;
  if (data.length !== height * (stride + 1)) throw new Error(`PNG image data is ${data.length} bytes, expected ${height * (stride + 1)}`);
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (stride + 1)];
    const line = data.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    const prior = row - stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[row + x - bpp] : 0;
      const b = y > 0 ? out[prior + x] : 0;
      const c = x >= bpp && y > 0 ? out[prior + x - bpp] : 0;
      out[row + x] = (line[x] + predict(filter, a, b, c)) & 0xff;
    }
  }
  return out;
}

function predict(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4:
      return paeth(a, b, c);
    default:
      throw new Error(`PNG filter type ${filter} is not valid`);
  }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

function toRgba(raw: Uint8Array, colorType: number, palette: Buffer | undefined, alpha: Buffer | undefined): Uint8Array {
  if (colorType === 6) return raw;
  const channels = CHANNELS[colorType];
  const n = raw.length / channels;
  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    const o = 4 * i;
    switch (colorType) {
      case 0:
      case 4:
        out[o] = out[o + 1] = out[o + 2] = raw[i * channels];
        out[o + 3] = colorType === 4 ? raw[i * 2 + 1] : 255;
        break;
      case 2:
        out.set(raw.subarray(3 * i, 3 * i + 3), o);
        out[o + 3] = 255;
        break;
      case 3: {
        const index = raw[i];
        if (palette === undefined || 3 * index + 3 > palette.length) throw new Error(`PNG palette has no entry ${index}`);
        out.set(palette.subarray(3 * index, 3 * index + 3), o);
        out[o + 3] = alpha !== undefined && index < alpha.length ? alpha[index] : 255;
        break;
      }
    }
  }
  return out;
}

/** pixelAt reads one pixel as [r, g, b, a]. */
export function pixelAt(png: DecodedPng, x: number, y: number): [number, number, number, number] {
  const o = 4 * (y * png.width + x);
  return [png.rgba[o], png.rgba[o + 1], png.rgba[o + 2], png.rgba[o + 3]];
}
