import { UsageError, type Command } from './command.js';
import { ProgressReporter } from './progress.js';

export const gen: Command = {
  name: 'gen',
  summary:
    'Generate deterministic demo telemetry (services calling each other: request counters, latency histograms, gauges, and logs in plain, logfmt and JSON styles with error bursts) and send it through the ingest endpoints. A backfill reports its progress on stderr.',
  usage: 'sluice gen --key KEY [--url URL] [--backfill DURATION] [--live] [--seed N] [--logs-per-second N]',
  options: {
    key: { type: 'string', valueName: 'KEY', description: 'API key of the org to write to (required).' },
    url: { type: 'string', valueName: 'URL', description: 'Service address (default http://localhost:8080).' },
    backfill: { type: 'string', valueName: 'DURATION', description: 'Write the span ending now, e.g. 1h or 2d (default 1h unless --live alone).' },
    live: { type: 'boolean', description: 'Keep writing one scrape every 15 s until interrupted.' },
    seed: { type: 'string', valueName: 'N', description: 'Seed of the generator; the same seed gives the same data (default 42).' },
    'logs-per-second': { type: 'string', valueName: 'N', description: 'Target log lines per second across services (default 20).' },
  },
  async run(values) {
    if (typeof values.key !== 'string') throw new UsageError('--key is required');
    const url = typeof values.url === 'string' ? values.url.replace(/\/$/, '') : 'http://localhost:8080';
    const seed = values.seed === undefined ? 42 : Number(values.seed);
    const logsPerSecond = values['logs-per-second'] === undefined ? 20 : Number(values['logs-per-second']);
    if (!Number.isInteger(seed)) throw new UsageError('--seed must be an integer');
    if (!(logsPerSecond >= 0)) throw new UsageError('--logs-per-second must be a non-negative number');
    // Loaded here, not at the top: the other commands share this entry point and should start fast.
    const [{ parsePromDuration }, { Generator }, { Sender, backfill, live }] = await Promise.all([
      import('../../engine/index.js'),
      import('../gen/generator.js'),
      import('../gen/sender.js'),
    ]);
    const span = typeof values.backfill === 'string' ? parsePromDuration(values.backfill) : values.live ? 0 : 3_600_000;
    if (span === undefined) throw new UsageError(`--backfill: "${String(values.backfill)}" is not a duration such as 1h or 2d`);
    const generator = new Generator({ seed, logsPerSecond });
    const sender = new Sender(url, values.key);
    if (span > 0) {
      const now = Date.now();
      const progress = new ProgressReporter('backfill');
      const interrupted = new AbortController();
      const onInterrupt = (): void => interrupted.abort();
      process.once('SIGINT', onInterrupt);
      const stats = await backfill(generator, sender, now - span, now, {
        signal: interrupted.signal,
        onProgress: (p) => progress.update(p.done, p.total, `scrapes, ${p.samples} samples, ${p.logLines} log lines`),
      });
      progress.finish();
      process.off('SIGINT', onInterrupt);
      if (interrupted.signal.aborted) {
        process.stdout.write(`interrupted after ${stats.samples} samples and ${stats.logLines} log lines\n`);
        return 130;
      }
      process.stdout.write(`backfilled ${stats.samples} samples and ${stats.logLines} log lines\n`);
    }
    if (values.live) {
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      process.once('SIGTERM', () => controller.abort());
      process.stdout.write('writing live data every 15 s; Ctrl-C to stop\n');
      const stats = await live(generator, sender, controller.signal, (err) => process.stderr.write(`write failed: ${String(err)}\n`));
      process.stdout.write(`sent ${stats.samples} samples and ${stats.logLines} log lines\n`);
    }
    return 0;
  },
};
