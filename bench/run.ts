import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Runs every benchmark under bench/ (files named *.bench.js once compiled), each through its
 * exported main(). Arguments filter by path substring: `npm run bench -- logql regex`.
 * Benchmarks print their own figures and ratios against baselines measured in the same run.
 */
const here = path.dirname(fileURLToPath(import.meta.url));

function benchFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return benchFiles(full);
    return name.endsWith('.bench.js') ? [full] : [];
  });
}

const filters = process.argv.slice(2);
const files = benchFiles(here)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
for (const file of files) {
  process.stdout.write(`\n=== ${path.relative(here, file)} ===\n`);
  const mod = (await import(pathToFileURL(file).href)) as { main?: () => Promise<void> | void };
  if (typeof mod.main !== 'function') throw new Error(`${file} exports no main()`);
  await mod.main();
}
