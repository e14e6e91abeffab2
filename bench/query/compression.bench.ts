import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { encodeRemoteWriteBody } from '../../engine/ingest/encode/remoteWrite.js';
import { KeyAdmin } from '../../src/auth/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { Bench } from 'tinybench';
import { StreamCompressor, utf8Bytes } from '../../src/http/compression.js';
import { COMPRESSED_PIECE_BYTES, PIECE_BYTES } from '../../src/http/sse.js';
import { startService } from '../../src/service.js';
import { runWhenDirect } from '../runDirect.js';
import { taskMeanMs } from '../taskResult.js';
import { DiscardLog } from '../harness/discardLog.js';

/**
 * A many-series query stream over loopback with and without compression: a real server and a
 * node:http client that decodes the stream as it arrives. Bytes on the wire and time to `done`
 * are reported as ratios to identity measured in the same run, runs interleaved; the compact
 * result format (`format: "compact"`) runs beside the default events, plain and compressed.
 * A one-point instant answer is timed the same way, compressed and not. Last, the compressor
 * alone: the CPU and event-loop time of compressing 10 MB of compact result events handed over
 * in pieces of the uncompressed stream's size and of the size compressed streams use.
 * `node dist/bench/query/compression.bench.js`; BENCH_SERIES sets the series (default 1,000).
 */
const SERIES = Number(process.env.BENCH_SERIES ?? 1_000);
const HOUR_MS = 3_600_000;
const ROUNDS = 3;
const SMALL_ROUNDS = 100;

function run(url: string, key: string, body: unknown, encoding: string | undefined): Promise<{ ms: number; wireBytes: number; textBytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-svc-api-key': key, 'content-type': 'application/json' };
    if (encoding !== undefined) headers['accept-encoding'] = encoding;
    const req = http.request(`${url}/api/v1/metrics/query`, { method: 'POST', headers }, (res) => {
      let wireBytes = 0;
      let textBytes = 0;
      res.on('data', (c: Buffer) => (wireBytes += c.length));
      const ce = res.headers['content-encoding'];
      const decoded = ce === 'gzip' ? res.pipe(zlib.createGunzip()) : ce === 'br' ? res.pipe(zlib.createBrotliDecompress()) : res;
      decoded.on('data', (c: Buffer) => (textBytes += c.length));
      decoded.on('end', () => resolve({ ms: performance.now() - started, wireBytes, textBytes }));
      decoded.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** compressInPieces pushes `text` through a gzip stream in pieces of `pieceChars`, as SseStream does, and measures what it cost. */
async function compressInPieces(text: string, pieceChars: number): Promise<{ cpuMs: number; loopMs: number; bytes: number }> {
  const compressor = new StreamCompressor('gzip');
  const loop0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  let bytes = 0;
  for (let at = 0; at < text.length; at += pieceChars) bytes += (await compressor.push([text.slice(at, at + pieceChars)])).length;
  bytes += (await compressor.finish([])).length;
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, loopMs: performance.eventLoopUtilization(loop0).active, bytes };
}

/** compactEventsText is about `chars` of compact `points` events for series of 241 irregular values, as a rate over an hour gives. */
function compactEventsText(chars: number): string {
  const times = Array.from({ length: 241 }, (_, i) => 1_732_000_000_000 + i * 15_000).join(',');
  let text = '';
  for (let id = 0; text.length < chars; id++) {
    const values = Array.from({ length: 241 }, (_, i) => (Math.sin(id * 241 + i) + 1.5) / 7).join(',');
    text += `data: {"type":"points","data":{"id":${id},"timestamps":[${times}],"values":[${values}]}}\n\n`;
  }
  return text;
}

export async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sluice-compression-bench-'));
  const config = loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' });
  const service = await startService(config, { logDestination: new DiscardLog(), announce: () => {} });
  try {
    const [org] = await service.store.listOrgs();
    const { key } = await new KeyAdmin(service.store).createKey(org.id, 'bench');
    const url = `http://127.0.0.1:${service.port}`;
    const now = Math.floor(Date.now() / 1000) * 1000;
    for (let from = 0; from < SERIES; from += 100) {
      const timeseries = Array.from({ length: Math.min(100, SERIES - from) }, (_, k) => ({
        labels: [
          { name: '__name__', value: 'http_requests_total' },
          { name: 'code', value: String(200 + ((from + k) % 4) * 100) },
          { name: 'instance', value: `host-${from + k}:9100` },
          { name: 'job', value: 'api' },
        ],
        samples: Array.from({ length: 241 }, (_, s) => ({ value: s * ((from + k) % 13) + Math.sin(s), timestamp: now - HOUR_MS + s * 15_000 })),
      }));
      const res = await fetch(`${url}/api/v1/write`, { method: 'POST', body: encodeRemoteWriteBody({ timeseries }), headers: { 'x-svc-api-key': key, 'content-type': 'application/x-protobuf' } });
      if (res.status !== 204) throw new Error(`write: ${res.status}`);
    }
    const body = { q: 'rate(http_requests_total[5m])', s: String(now - HOUR_MS), e: String(now), step: 15 };
    const compactBody = { ...body, format: 'compact' };
    const variants = [
      { name: 'identity', body, encoding: undefined },
      { name: 'gzip', body, encoding: 'gzip' },
      { name: 'br', body, encoding: 'br' },
      { name: 'compact format, identity', body: compactBody, encoding: undefined },
      { name: 'compact format, gzip', body: compactBody, encoding: 'gzip' },
    ] as const;
    const samples = new Map<string, Array<{ ms: number; wireBytes: number; textBytes: number }>>();
    await run(url, key, body, undefined);
    await run(url, key, compactBody, undefined);
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of variants) samples.set(v.name, [...(samples.get(v.name) ?? []), await run(url, key, v.body, v.encoding)]);
    }
    const base = samples.get('identity')!;
    console.log(`${SERIES} series x 1 h at 15 s as point events, ${ROUNDS} interleaved rounds, medians`);
    console.table(
      [...samples].map(([name, runs]) => ({
        encoding: name,
        'wire bytes / point': (median(runs.map((r) => r.wireBytes)) / (SERIES * 241)).toFixed(1),
        'wire bytes vs identity': (median(runs.map((r) => r.wireBytes)) / median(base.map((r) => r.wireBytes))).toFixed(3),
        'time vs identity': (median(runs.map((r) => r.ms)) / median(base.map((r) => r.ms))).toFixed(2),
      })),
    );
    // Small answers, compressed whole on the event loop: one instant point should cost about
    // what identity costs, not a round trip to the thread pool for each write; an instant
    // point of every series (about 200 KB of events for 1,000) is held whole too.
    const instants = [
      { name: 'One instant point', body: { q: 'sum(http_requests_total)', s: String(now), e: String(now) } },
      { name: `An instant point of each of ${SERIES} series`, body: { q: 'rate(http_requests_total[5m])', s: String(now), e: String(now) } },
    ];
    for (const instant of instants) {
      const smallRuns = new Map<string, number[]>();
      let textBytes = 0;
      for (let round = 0; round < SMALL_ROUNDS; round++) {
        for (const encoding of [undefined, 'gzip', 'br']) {
          const name = encoding ?? 'identity';
          const answer = await run(url, key, instant.body, encoding);
          textBytes = answer.textBytes;
          smallRuns.set(name, [...(smallRuns.get(name) ?? []), answer.ms]);
        }
      }
      const smallBase = median(smallRuns.get('identity')!);
      console.log(`\n${instant.name} (${textBytes} bytes of events), ${SMALL_ROUNDS} interleaved rounds, medians`);
      console.table([...smallRuns].map(([encoding, ms]) => ({ encoding, 'ms to done': median(ms).toFixed(2), 'time vs identity': (median(ms) / smallBase).toFixed(2) })));
    }

    const text = compactEventsText(10_000_000);
    const pieces = new Map<number, Array<{ cpuMs: number; loopMs: number; bytes: number }>>();
    for (let round = 0; round < 2 + 7; round++) {
      for (const size of [PIECE_BYTES, COMPRESSED_PIECE_BYTES]) {
        const r = await compressInPieces(text, size);
        if (round >= 2) pieces.set(size, [...(pieces.get(size) ?? []), r]);
      }
    }
    const small64 = pieces.get(PIECE_BYTES)!;
    console.log(`\nThe compressor alone: ${(text.length / 1e6).toFixed(1)} MB of compact events in pieces, 7 interleaved rounds after 2, medians`);
    console.table(
      [...pieces].map(([size, runs]) => ({
        'piece KiB': size / 1024,
        'process CPU ms': median(runs.map((r) => r.cpuMs)).toFixed(1),
        'event-loop ms': median(runs.map((r) => r.loopMs)).toFixed(1),
        'CPU vs 64 KiB pieces': (median(runs.map((r) => r.cpuMs)) / median(small64.map((r) => r.cpuMs))).toFixed(2),
        'compressed bytes': median(runs.map((r) => r.bytes)),
      })),
    );

    // A piece as the default events build it: each event joined from its series' text, the
    // value and the timestamp, events into batches, batches into the piece.
    const head = 'data: {"type":"result","data":{"tags":{"__name__":"http_requests_total","code":200,"instance":"host-17:9100","job":"api"},"value":';
    const tail = ',"label":"http_requests_total{code=\\"200\\", instance=\\"host-17:9100\\", job=\\"api\\"}"}}\n\n';
    const pieceOf = (): string => {
      let piece = '';
      let batch = '';
      for (let i = 0; piece.length < COMPRESSED_PIECE_BYTES; i++) {
        batch += head + Math.sin(i) / 7 + ',"timestamp":' + (1_732_000_000_000 + i * 15_000) + tail;
        if (batch.length >= PIECE_BYTES) {
          piece += batch;
          batch = '';
        }
      }
      return piece;
    };
    const encode = new Bench({ time: 1_000, warmup: true, warmupTime: 200 });
    encode.add('utf8Bytes', () => void utf8Bytes(pieceOf()));
    encode.add('Buffer.from', () => void Buffer.from(pieceOf()));
    encode.add('joining the piece alone', () => void pieceOf().length);
    await encode.run();
    const joining = taskMeanMs(encode, 'joining the piece alone');
    const ours = taskMeanMs(encode, 'utf8Bytes') - joining;
    const before = taskMeanMs(encode, 'Buffer.from') - joining;
    console.log(`\nEncoding a 1 MiB piece of those events for the compressor: utf8Bytes ${ours.toFixed(2)} ms, Buffer.from ${before.toFixed(2)} ms, ratio ${(ours / before).toFixed(2)}x`);
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenDirect(import.meta.url, main);
