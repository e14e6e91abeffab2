/**
 * Remote write 2.0 decoding against 1.0 on the same samples: the same 2,000 series of 10
 * samples (the request ingest.bench.ts times), once as a 1.0 WriteRequest and once as a 2.0
 * Request with its symbols table, encoded by protobufjs from the messages' .proto. Reported as
 * a ratio measured in the same run, raw protobuf and with snappy, with the body sizes.
 *
 * Run: npx tsc -p tsconfig.json && node dist/bench/ingest/remoteWrite2.bench.js
 */
import path from 'node:path';
import protobuf from 'protobufjs';
import { Bench } from 'tinybench';
import { decodeRemoteWrite, decodeRemoteWrite2, decodeRequest2, decodeWriteRequest, encodeWriteRequest, snappyCompress, type WriteRequestInput } from '../../engine/ingest/index.js';
import { runWhenDirect } from '../runDirect.js';
import { findFixtures, remoteWriteRequest } from './ingest.bench.js';
import { taskHz } from '../taskResult.js';

const NOW_MS = Date.UTC(2024, 4, 1, 12, 0, 0);

/** toV2 re-expresses a 1.0 request as a 2.0 message: labels become references into one symbols table. */
function toV2(request: WriteRequestInput): Record<string, unknown> {
  const symbols = [''];
  const index = new Map<string, number>([['', 0]]);
  const ref = (text: string): number => {
    let i = index.get(text);
    if (i === undefined) index.set(text, (i = symbols.push(text) - 1));
    return i;
  };
  const timeseries = request.timeseries.map((s) => ({
    labelsRefs: s.labels.flatMap((l) => [ref(l.name), ref(l.value)]),
    samples: (s.samples ?? []).map((p) => ({ value: p.value, timestamp: String(p.timestamp) })),
  }));
  return { symbols, timeseries };
}

export async function main(): Promise<void> {
  const root = new protobuf.Root();
  const fixtures = findFixtures();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(fixtures, target));
  root.loadSync(['prometheus/write/v2/types.proto']);
  const requestV2 = root.lookupType('io.prometheus.write.v2.Request');

  const request = remoteWriteRequest();
  const rawV1 = encodeWriteRequest(request);
  const rawV2 = requestV2.encode(requestV2.fromObject(toV2(request))).finish();
  const bodyV1 = snappyCompress(rawV1);
  const bodyV2 = snappyCompress(rawV2);
  const opts = { nowMs: NOW_MS };

  // Sanity: both decode to the same samples before anything is timed.
  const one = decodeWriteRequest(rawV1, opts);
  const two = decodeRequest2(rawV2, opts);
  const samples = (r: typeof one) => r.records.reduce((n, s) => n + s.values.length, 0);
  if (samples(one) !== samples(two) || samples(one) === 0 || one.rejected + two.rejected !== 0) {
    throw new Error(`1.0 decoded ${samples(one)} samples, 2.0 ${samples(two)}`);
  }

  const bench = new Bench({ time: 1500, warmupTime: 300 });
  bench
    .add('1.0 decode', () => void decodeWriteRequest(rawV1, opts))
    .add('2.0 decode', () => void decodeRequest2(rawV2, opts))
    .add('1.0 snappy + decode', () => void decodeRemoteWrite(bodyV1, opts))
    .add('2.0 snappy + decode', () => void decodeRemoteWrite2(bodyV2, opts));
  await bench.run();

  console.log(`\nRemote write 2.0 vs 1.0, ${samples(one)} samples in ${one.records.length} series`);
  console.log(`  raw protobuf bytes      1.0 ${rawV1.length}   2.0 ${rawV2.length}   (2.0/1.0 = ${(rawV2.length / rawV1.length).toFixed(2)})`);
  console.log(`  snappy body bytes       1.0 ${bodyV1.length}   2.0 ${bodyV2.length}   (2.0/1.0 = ${(bodyV2.length / bodyV1.length).toFixed(2)})`);
  console.log(`  decode speed            2.0/1.0 = ${(taskHz(bench, '2.0 decode') / taskHz(bench, '1.0 decode')).toFixed(2)}x`);
  console.log(`  snappy + decode speed   2.0/1.0 = ${(taskHz(bench, '2.0 snappy + decode') / taskHz(bench, '1.0 snappy + decode')).toFixed(2)}x`);
  console.log('');
  console.table(bench.table());
}

runWhenDirect(import.meta.url, main);
