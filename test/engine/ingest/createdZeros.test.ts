import { describe, expect, it } from 'vitest';
import { decodeRequest2 } from '../../../engine/ingest/remoteWrite2.js';
import type { LastSampleLookup } from '../../../engine/storage/metricHead.js';
import { pbEncode, WriteRequestV2 } from './protoTypes.js';

/**
 * Where a created timestamp's zero goes, by what the lookup of stored samples answers: after
 * the newest stored sample only, and nowhere when the process cannot know it (an ingest-only
 * process holds no heads).
 */

const NOW_MS = 1_700_000_000_000;

/** request is one uncompressed 2.0 message: series `c_total` with samples 30 s and 15 s ago, both created 60 s ago. */
function request(): Uint8Array {
  const samples = [30, 15].map((ago, i) => ({ value: i + 1, timestamp: String(NOW_MS - ago * 1000), startTimestamp: String(NOW_MS - 60_000) }));
  return pbEncode(WriteRequestV2, { symbols: ['', '__name__', 'c_total'], timeseries: [{ labelsRefs: [1, 2], samples }] });
}

function decode(lastStoredMs: LastSampleLookup | undefined): { times: number[]; zeros: number } {
  const out = decodeRequest2(request(), { nowMs: NOW_MS, createdTimestampZero: true, lastStoredMs });
  return { times: [...out.records[0].timestampsMs].map((t) => (NOW_MS - t) / 1000), zeros: out.createdZeros };
}

describe('created timestamp zeros and the stored samples', () => {
  it('adds the zero when nothing is stored, or only older samples', () => {
    expect(decode(() => -Infinity)).toEqual({ times: [60, 30, 15], zeros: 1 });
    expect(decode(() => NOW_MS - 90_000)).toEqual({ times: [60, 30, 15], zeros: 1 });
  });

  it('adds none when a stored sample is as new as the created timestamp or newer', () => {
    expect(decode(() => NOW_MS - 60_000)).toEqual({ times: [30, 15], zeros: 0 });
    expect(decode(() => NOW_MS - 45_000)).toEqual({ times: [30, 15], zeros: 0 });
  });

  it('adds none when the process cannot know what is stored', () => {
    expect(decode(() => undefined)).toEqual({ times: [30, 15], zeros: 0 });
  });

  it('asks the lookup with the series labels', () => {
    const asked: Record<string, string>[] = [];
    decode((labels) => {
      asked.push({ ...labels });
      return -Infinity;
    });
    expect(asked).toEqual([{ __name__: 'c_total' }]);
  });
});
