import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { IngestFigures } from './loadSluice.js';
import type { PromtoolFigures } from './loadPrometheus.js';
import { temporaryDirectory } from './processes.js';
import type { ScaleName } from './scales.js';

/**
 * `--keep DIR` leaves the loaded data of a run in DIR so that the next run at the same scale
 * starts from it instead of loading again: at the large scale loading takes about half an hour
 * of a run's ninety minutes, and a run that stops late (a crash, a reboot) need not pay it twice.
 * The dataset is deterministic given its end time, so keeping that time (with the API key the
 * data was written under and the load figures) is all it takes to ask the same questions again.
 */
export interface DataDirectories {
  prometheus: string;
  sluice: string;
  victoria: string;
  /** The log lines as plain text, for `grep -F -c`. */
  rawLogFile: string;
}

export interface LoadFigures {
  prometheus: PromtoolFigures;
  sluiceMetrics: IngestFigures;
  sluiceLogs: IngestFigures;
  victoria: IngestFigures;
}

export interface KeptLoad {
  scale: ScaleName;
  endMs: number;
  sluiceKey: string;
  load: LoadFigures;
  /** When the data was loaded (ISO time). */
  loadedAt: string;
}

const STATE_FILE = 'loaded.json';

/** temporaryDataDirectories are removed when the run ends, as without --keep. */
export function temporaryDataDirectories(): DataDirectories {
  return {
    prometheus: temporaryDirectory('prometheus-peers-'),
    sluice: temporaryDirectory('sluice-peers-'),
    victoria: temporaryDirectory('victoria-peers-'),
    rawLogFile: path.join(temporaryDirectory('logs-raw-'), 'lines.txt'),
  };
}

export function keptDataDirectories(root: string): DataDirectories {
  return {
    prometheus: path.join(root, 'prometheus'),
    sluice: path.join(root, 'sluice'),
    victoria: path.join(root, 'victoria'),
    rawLogFile: path.join(root, 'logs', 'lines.txt'),
  };
}

/**
 * keptLoad is the load a previous run left in `root` for this scale, or undefined when there is
 * none (or it was for another scale, or never finished): the caller then loads afresh.
 */
export function keptLoad(root: string, scale: ScaleName): KeptLoad | undefined {
  const file = path.join(root, STATE_FILE);
  if (!existsSync(file)) return undefined;
  const state = JSON.parse(readFileSync(file, 'utf8')) as KeptLoad;
  return state.scale === scale ? state : undefined;
}

/** emptyKeptDirectories clears what an unfinished or other-scale load left, before loading afresh. */
export function emptyKeptDirectories(root: string): DataDirectories {
  const dirs = keptDataDirectories(root);
  rmSync(path.join(root, STATE_FILE), { force: true });
  for (const dir of [dirs.prometheus, dirs.sluice, dirs.victoria, path.dirname(dirs.rawLogFile)]) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  return dirs;
}

/** recordKeptLoad is written last, once all three systems hold the whole dataset. */
export function recordKeptLoad(root: string, state: KeptLoad): void {
  writeFileSync(path.join(root, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}
