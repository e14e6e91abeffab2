import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { exposition, type Dataset } from './dataset.js';
import { temporaryDirectory } from './processes.js';

/**
 * Loads the dataset into Prometheus the way its documentation offers for history: an
 * OpenMetrics file turned into TSDB blocks by `promtool tsdb create-blocks-from openmetrics`,
 * written into the data directory before Prometheus starts. Samples are written time-major,
 * so each series' timestamps increase through the file as promtool requires.
 */
export interface PromtoolFigures {
  samples: number;
  writeSeconds: number;
  promtoolSeconds: number;
}

export async function writeOpenMetrics(dataset: Dataset, file: string): Promise<void> {
  const out = createWriteStream(file);
  const names = dataset.series.map((s) => exposition(s.labels));
  for (const step of dataset.samples()) {
    const seconds = (step.timestampMs / 1000).toFixed(3);
    let text = '';
    for (let i = 0; i < names.length; i++) text += `${names[i]} ${step.values[i]} ${seconds}\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end('# EOF\n');
  await once(out, 'finish');
}

function runPromtool(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = spawn('promtool', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proc.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-8192)));
    proc.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-8192)));
    proc.on('error', reject);
    proc.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`promtool ${args.join(' ')} exited ${code}:\n${output}`))));
  });
}

/** loadPrometheusBlocks writes the blocks into `dataDir`; start Prometheus on it afterwards. */
export async function loadPrometheusBlocks(dataset: Dataset, dataDir: string): Promise<PromtoolFigures> {
  const file = path.join(temporaryDirectory('prometheus-openmetrics-'), 'dataset.om');
  const t0 = performance.now();
  await writeOpenMetrics(dataset, file);
  const t1 = performance.now();
  await runPromtool(['tsdb', 'create-blocks-from', 'openmetrics', file, dataDir]);
  const t2 = performance.now();
  return { samples: dataset.sampleCount, writeSeconds: (t1 - t0) / 1000, promtoolSeconds: (t2 - t1) / 1000 };
}
