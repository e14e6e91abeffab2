import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { Packr } from 'msgpackr';
import { Bench } from 'tinybench';
import { sortByLabels } from '../../engine/promql/eval/labelset.js';
import { packSeries, transferablesOf, unpackSeries, type PackedSeries } from '../../engine/query/packing.js';
import { sortSeriesByKey } from '../../engine/storage/keyedSeries.js';
import type { Labels } from '../../engine/storage/labels.js';
import type { SeriesColumns } from '../../engine/storage/seriesColumns.js';
import { successJson, vectorData } from '../../src/prometheus/render.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';

/**
 * The answering thread's part of a 10,000-series instant query through the Prometheus API
 * (`rate(requests_total[5m])` over every series): two shards' answers received as messages,
 * merged, sorted by labels and written as a vector. This build sends each series as its key
 * and its label set's JSON (KeyedSeries, PackedSeries.labelsText), so that thread makes no
 * label object; against it, in the same run, the previous way: label sets packed with msgpackr,
 * unpacked into objects, sorted by them and rendered from them. Both bodies are checked equal
 * first. `node dist/bench/query/keyedAnswer.bench.js`.
 */

const SERIES = 10_000;
const AT_MS = 1_700_000_000_000;

function shard(index: number): SeriesColumns[] {
  const series: SeriesColumns[] = [];
  for (let i = index; i < SERIES; i += 2) {
    const labels: Labels = { code: String(200 + (i % 5)), instance: `i-${String(i % 1000).padStart(4, '0')}`, job: 'bench', method: i % 2 ? 'GET' : 'POST', route: `/r${i % 20}`, series: `s${i}`, zone: `z${i % 3}` };
    series.push({ labels, timestampsMs: Float64Array.of(AT_MS), values: Float64Array.of(i * 0.37) });
  }
  return series;
}

const channel = new MessageChannel();

/** received is what the answering thread gets of a message: a fresh copy of every field, the buffers moved. */
function received<T extends object>(message: T): T {
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(message)) copy[name] = ArrayBuffer.isView(value) ? (value as Uint8Array).slice() : value;
  channel.port1.postMessage(copy, transferablesOf(copy as unknown as PackedSeries));
  return receiveMessageOnPort(channel.port2)!.message as T;
}

const packr = new Packr({ useRecords: false });

/** labelObjectsAnswer is the previous message: label sets packed with msgpackr beside the points. */
function labelObjectsAnswer(series: SeriesColumns[]): PackedSeries & { labelSets: Uint8Array } {
  const { keys: _keys, labelsText: _json, labelsTextAt: _at, ...rest } = packSeries(series, { sampleText: true });
  return { ...rest, keys: [], labelSets: new Uint8Array(packr.pack(series.map((s) => s.labels))) };
}

/** fromLabelObjects reads the previous message back into series with label objects. */
function fromLabelObjects(packed: PackedSeries & { labelSets: Uint8Array }): SeriesColumns[] {
  const labels = packr.unpack(packed.labelSets) as Labels[];
  return labels.map((l, i) => {
    const from = packed.offsets[i];
    const to = packed.offsets[i + 1];
    return { labels: l, timestampsMs: packed.timestampsMs.subarray(from, to), values: packed.values.subarray(from, to), sampleText: { bytes: packed.sampleText!, at: packed.sampleTextAt!.subarray(from, to + 1) } };
  });
}

export async function main(): Promise<void> {
  const shards = [shard(0), shard(1)];
  const keyed = shards.map((s) => packSeries(s, { sampleText: true }));
  const objects = shards.map(labelObjectsAnswer);
  const keyedBody = (): Buffer => successJson(vectorData(sortSeriesByKey([...unpackSeries(received(keyed[0])), ...unpackSeries(received(keyed[1]))]), AT_MS));
  const objectsBody = (): Buffer =>
    successJson(
      vectorData(
        sortByLabels([...fromLabelObjects(received(objects[0])), ...fromLabelObjects(received(objects[1]))], (s) => s.labels),
        AT_MS,
      ),
    );
  if (keyedBody().toString() !== objectsBody().toString()) throw new Error('the two answers differ');
  const bench = new Bench({ time: 2_000, warmup: true, warmupTime: 500 });
  bench.add('keyed series', () => void keyedBody());
  bench.add('label objects', () => void objectsBody());
  bench.add('worker: packSeries, keys and label JSON', () => void packSeries(shards[0], { sampleText: true }));
  await bench.run();
  const ours = taskMeanMs(bench, 'keyed series');
  const before = taskMeanMs(bench, 'label objects');
  console.log(`\n${SERIES.toLocaleString('en')}-series instant vector on the answering thread (two shards received, merged, sorted, written)`);
  console.log(`  keyed series ${ours.toFixed(1)} ms   label objects ${before.toFixed(1)} ms   ratio ${(ours / before).toFixed(2)}x`);
  console.log(`  one shard's packing on its worker: ${taskMeanMs(bench, 'worker: packSeries, keys and label JSON').toFixed(1)} ms`);
}

runWhenDirect(import.meta.url, main);
