/**
 * xxHash64 (seed 0) and Prometheus' label-set hash built on it. limit_ratio() samples series
 * by this hash, so using the same function makes our sample the same as Prometheus' for the
 * same series. BigInt arithmetic keeps it short; it runs once per series, not per sample.
 */
import type { Labels } from './labelset.js';

const MASK = (1n << 64n) - 1n;
const P1 = 11400714785074694791n;
const P2 = 14029467366897019727n;
const P3 = 1609587929392839161n;
const P4 = 9650029242287828579n;
const P5 = 2870177450012600261n;

function rotl(v: bigint, r: bigint): bigint {
  return ((v << r) | (v >> (64n - r))) & MASK;
}

function round(acc: bigint, lane: bigint): bigint {
  return (rotl((acc + lane * P2) & MASK, 31n) * P1) & MASK;
}

function mergeRound(acc: bigint, val: bigint): bigint {
  return (((acc ^ round(0n, val)) * P1) & MASK) + P4 & MASK;
}

function u64(b: Uint8Array, i: number): bigint {
  let v = 0n;
  for (let k = 7; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]);
  return v;
}

function u32(b: Uint8Array, i: number): bigint {
  return BigInt((b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0);
}

/** xxhash64 hashes bytes with seed 0. */
export function xxhash64(b: Uint8Array): bigint {
  const n = b.length;
  let i = 0;
  let h: bigint;
  if (n >= 32) {
    let v1 = (P1 + P2) & MASK;
    let v2 = P2;
    let v3 = 0n;
    let v4 = (-P1) & MASK;
    for (; i + 32 <= n; i += 32) {
      v1 = round(v1, u64(b, i));
      v2 = round(v2, u64(b, i + 8));
      v3 = round(v3, u64(b, i + 16));
      v4 = round(v4, u64(b, i + 24));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = mergeRound(h, v1);
    h = mergeRound(h, v2);
    h = mergeRound(h, v3);
    h = mergeRound(h, v4);
  } else {
    h = P5;
  }
  h = (h + BigInt(n)) & MASK;
  for (; i + 8 <= n; i += 8) {
    h ^= round(0n, u64(b, i));
    h = ((rotl(h, 27n) * P1) & MASK) + P4 & MASK;
  }
  if (i + 4 <= n) {
    h ^= (u32(b, i) * P1) & MASK;
    h = ((rotl(h, 23n) * P2) & MASK) + P3 & MASK;
    i += 4;
  }
  for (; i < n; i++) {
    h ^= (BigInt(b[i]) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}

const encoder = new TextEncoder();

/** encodeSize writes a length as Prometheus' string labels do: one byte, or 255 and three bytes. */
function encodeSize(out: number[], size: number): void {
  if (size < 255) out.push(size);
  else out.push(255, size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff);
}

/** labelsHash is Prometheus' Labels.Hash(): xxHash64 of the length-prefixed names and values. */
export function labelsHash(labels: Labels): bigint {
  const bytes: number[] = [];
  for (const name in labels) {
    for (const part of [name, labels[name]]) {
      const encoded = encoder.encode(part);
      encodeSize(bytes, encoded.length);
      for (const byte of encoded) bytes.push(byte);
    }
  }
  return xxhash64(Uint8Array.from(bytes));
}
