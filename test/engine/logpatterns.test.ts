import { describe, expect, it } from 'vitest';
import { DrainMiner, OVERFLOW_TEMPLATE, type DrainOptions, type LogPattern } from '../../engine/logpatterns/drain.js';
import { tokenizeLine } from '../../engine/logpatterns/tokens.js';

/** mulberry32, so failures reproduce. */
function generator(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mine(lines: readonly string[], options?: DrainOptions): LogPattern[] {
  const miner = new DrainMiner(options);
  lines.forEach((line, i) => miner.add(line, 1000 + i));
  return miner.patterns();
}

function templates(lines: readonly string[], options?: DrainOptions): string[] {
  return mine(lines, options).map((p) => p.template);
}

const masked = (line: string): string => tokenizeLine(line, 2048).join(' ');

describe('masking obvious variables', () => {
  it.each([
    ['count 42 and -7 and 3.14 and 1e-3 and 95%', 'count <*> and <*> and <*> and <*> and <*>'],
    ['id 550e8400-e29b-41d4-a716-446655440000 done', 'id <*> done'],
    ['trace 4bf92f3577b34da6 span 0x1F', 'trace <*> span <*>'],
    ['from 10.0.0.1 via 192.168.1.20:8080', 'from <*> via <*>'],
    ['took 12ms then 1h2m3.5s then 300us', 'took <*> then <*> then <*>'],
    ['at 2026-01-01T10:00:00.123Z and 2026-01-01 10:00:00,5 +0200', 'at <*> and <*> <*> <*>'],
    ['read 3.5MiB in 512B chunks from v1.2.3', 'read <*> in <*> chunks from <*>'],
    ['pod api-7d9f8c6b5-x2k4p restarted', 'pod <*> restarted'],
  ])('%s', (line, want) => {
    expect(masked(line)).toBe(want);
  });

  it('keeps words, digit-free tokens and the fixed parts of paths', () => {
    expect(masked('GET /api/v1/items/1234?page=2 HTTP/1.1')).toBe('GET /api/v1/items/<*>?page=<*> HTTP/<*>');
    expect(masked('deadbeef cafe v2 sda1')).toBe('deadbeef cafe v2 sda1');
  });

  it('keeps wrapping punctuation around a masked value', () => {
    expect(masked('connect (10.0.0.1:5432), "42" [2026-01-01T00:00:00Z]')).toBe('connect (<*>), "<*>" [<*>]');
  });

  it('masks logfmt values and keeps their keys', () => {
    expect(masked('status=500 took=12ms user=u-42 method=GET msg="retry 3 of 5"')).toBe(
      'status=<*> took=<*> user=u-<*> method=GET msg="retry <*> of <*>"',
    );
  });

  it('renders JSON objects as key=value with nested keys dotted', () => {
    const line = '{"level":"error","msg":"payment failed","order_id":12345,"http":{"method":"POST","status":502},"tags":["a"],"ok":false,"who":""}';
    expect(masked(line)).toBe('level=error msg="payment failed" order_id=<*> http.method=POST http.status=<*> tags=<*> ok=false who=""');
  });

  it('treats text that only looks like JSON as text', () => {
    expect(masked('{not json 42}')).toBe('{not json <*>}');
  });
});

describe('templates', () => {
  it('mines a plain-text template with variables as <*>', () => {
    const got = mine(['user 123 logged in from 10.0.0.1', 'user 456 logged in from 10.0.0.2']);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ template: 'user <*> logged in from <*>', count: 2, sampleLine: 'user 123 logged in from 10.0.0.1' });
  });

  it('turns positions that differ into <*> when lines merge', () => {
    expect(templates(['cache warmed for tenant alpha', 'cache warmed for tenant beta', 'cache warmed for tenant gamma'])).toEqual([
      'cache warmed for tenant <*>',
    ]);
  });

  it('keeps the key when logfmt values differ', () => {
    const lines = [
      'level=info msg="request served" method=GET user=alice status=200',
      'level=info msg="request served" method=POST user=bob status=201',
    ];
    expect(templates(lines)).toEqual(['level=info msg="request served" method=<*> user=<*> status=<*>']);
  });

  it('mines JSON lines by their keys and message', () => {
    const lines = [
      '{"ts":"2026-01-01T00:00:00Z","level":"error","msg":"payment failed","order_id":1,"provider":"visa"}',
      '{"ts":"2026-01-01T00:00:01Z","level":"error","msg":"payment failed","order_id":2,"provider":"amex"}',
    ];
    expect(templates(lines)).toEqual(['ts=<*> level=error msg="payment failed" order_id=<*> provider=<*>']);
  });

  it('keeps structured lines with different messages apart even when their other fields agree', () => {
    const fields = '"service":"api","region":"eu-west","pod":"p","team":"core","env":"prod"';
    const lines = [`{"level":"info","msg":"order shipped",${fields}}`, `{"level":"info","msg":"payment captured",${fields}}`];
    expect(templates(lines).sort()).toEqual([
      'level=info msg="order shipped" service=api region=eu-west pod=p team=core env=prod',
      'level=info msg="payment captured" service=api region=eu-west pod=p team=core env=prod',
    ]);
  });

  it('keeps the same message at different levels apart', () => {
    const lines = ['level=warn msg="upstream slow" svc=api', 'level=error msg="upstream slow" svc=api'];
    expect(templates(lines)).toHaveLength(2);
  });
});

describe('clustering', () => {
  it('puts similar lines together and dissimilar ones apart', () => {
    const lines = [
      'connection to db-1 failed after 3 retries',
      'job runner started processing batch queue',
      'connection to db-2 failed after 5 retries',
      'job runner crashed with fatal signal',
      'disk /dev/sda1 is 95% full',
      'connection to db-7 failed after 1 retries',
    ];
    const got = mine(lines);
    expect(got.map((p) => [p.template, p.count])).toEqual([
      ['connection to db-<*> failed after <*> retries', 3],
      ['job runner started processing batch queue', 1],
      ['job runner crashed with fatal signal', 1],
      ['disk /dev/sda1 is <*> full', 1],
    ]);
  });

  it('never merges lines of different token counts', () => {
    expect(templates(['worker 1 stopped', 'worker 1 stopped cleanly'])).toHaveLength(2);
  });

  it('returns the cluster id the line joined', () => {
    const miner = new DrainMiner();
    const a = miner.add('user 1 logged in', 0);
    const b = miner.add('disk almost full', 0);
    expect(miner.add('user 2 logged in', 0)).toBe(a);
    expect(b).not.toBe(a);
    expect(miner.patterns().map((p) => p.id)).toEqual([a, b]);
  });

  it('respects a stricter similarity', () => {
    const lines = ['alpha beta gamma delta', 'alpha beta omega sigma'];
    expect(templates(lines, { similarity: 0.5 })).toEqual(['alpha beta <*> <*>']);
    expect(templates(lines, { similarity: 0.75 })).toHaveLength(2);
  });

  it('cuts long lines before tokenising and keeps a cut sample', () => {
    const long = `start ${'x'.repeat(10_000)} end`;
    const [p] = mine([long], { maxLineLength: 100 });
    expect(p.sampleLine).toHaveLength(100);
    expect(p.template.length).toBeLessThanOrEqual(100);
  });
});

describe('counts and times', () => {
  it('counts lines and tracks the earliest and latest timestamps in any arrival order', () => {
    const miner = new DrainMiner();
    miner.add('request 1 done', 5000);
    miner.add('request 2 done', 2000);
    miner.add('request 3 done', 9000);
    miner.add('shutting down now', 7000);
    const [req, shut] = miner.patterns();
    expect(req).toMatchObject({ template: 'request <*> done', count: 3, firstMs: 2000, lastMs: 9000 });
    expect(shut).toMatchObject({ template: 'shutting down now', count: 1, firstMs: 7000, lastMs: 7000 });
    expect(miner.stats()).toMatchObject({ lines: 4, clusters: 2, evicted: 0 });
  });

  it('buckets counts over the window, the end inclusive, and they add up to the totals', () => {
    const miner = new DrainMiner({ timeBuckets: { startMs: 0, endMs: 1000, count: 10 } });
    miner.add('tick 1', 0);
    miner.add('tick 2', 99);
    miner.add('tick 3', 100);
    miner.add('tick 4', 1000);
    const [tick] = miner.patterns();
    expect(tick.buckets).toEqual([2, 1, 0, 0, 0, 0, 0, 0, 0, 1]);

    const rnd = generator(7);
    const spread = new DrainMiner({ timeBuckets: { startMs: 1_000, endMs: 61_000, count: 60 } });
    for (let i = 0; i < 5000; i++) {
      const kind = Math.floor(rnd() * 4);
      spread.add(`event kind${kind} value ${Math.floor(rnd() * 1000)}`, 1_000 + Math.floor(rnd() * 60_001));
    }
    const patterns = spread.patterns();
    expect(patterns.length).toBeGreaterThan(0);
    for (const p of patterns) expect(p.buckets!.reduce((a, b) => a + b, 0)).toBe(p.count);
    expect(patterns.reduce((a, p) => a + p.count, 0)).toBe(5000);
  });

  it('leaves lines outside the window out of the buckets but not out of the count', () => {
    const miner = new DrainMiner({ timeBuckets: { startMs: 100, endMs: 200, count: 2 } });
    miner.add('ping', 50);
    miner.add('ping', 150);
    miner.add('ping', 250);
    expect(miner.patterns()[0]).toMatchObject({ count: 3, buckets: [0, 1], firstMs: 50, lastMs: 250 });
  });
});

describe('bounded memory', () => {
  function randomWord(rnd: () => number): string {
    const n = 3 + Math.floor(rnd() * 6);
    let w = '';
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(rnd() * 26));
    return w;
  }

  function randomLine(rnd: () => number): string {
    const n = 4 + Math.floor(rnd() * 9);
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(randomWord(rnd));
    return words.join(' ');
  }

  it('holds at most maxClusters clusters over 100k random unique lines, counts intact', () => {
    const maxClusters = 1000;
    const miner = new DrainMiner({ maxClusters, timeBuckets: { startMs: 0, endMs: 100_000, count: 20 } });
    const rnd = generator(2024);
    for (let i = 0; i < 50; i++) miner.add(`heartbeat from node ${i % 5} ok`, i);
    for (let i = 0; i < 100_000; i++) miner.add(randomLine(rnd), i);
    const stats = miner.stats();
    expect(stats.lines).toBe(100_050);
    expect(stats.clusters).toBeLessThanOrEqual(maxClusters);
    expect(stats.evicted).toBeGreaterThan(90_000);
    // Each cluster needs at most one path of depth-1 nodes; empty paths are pruned.
    expect(stats.treeNodes).toBeLessThanOrEqual(maxClusters * 3);

    const patterns = miner.patterns();
    expect(patterns.reduce((a, p) => a + p.count, 0)).toBe(100_050);
    for (const p of patterns) expect(p.buckets!.reduce((a, b) => a + b, 0)).toBe(p.count);
    const overflow = patterns.find((p) => p.overflow === true);
    expect(overflow).toMatchObject({ id: -1, template: OVERFLOW_TEMPLATE });
    // The established pattern outlives the flood of one-off lines.
    expect(patterns.find((p) => p.template.startsWith('heartbeat'))).toMatchObject({ template: 'heartbeat from node <*> ok', count: 50 });
    expect(patterns[0]).toBe(overflow);
  });

  it('evicts the least used cluster, the least recently used among equals', () => {
    const miner = new DrainMiner({ maxClusters: 2 });
    miner.add('alpha happened', 0);
    miner.add('alpha happened', 1);
    miner.add('beta happened', 2);
    miner.add('gamma happened', 3); // beta (count 1) goes, alpha (count 2) stays
    miner.add('delta happened', 4); // gamma and delta tie at one; the older, gamma, goes
    expect(miner.patterns().map((p) => [p.template, p.count])).toEqual([
      ['alpha happened', 2],
      [OVERFLOW_TEMPLATE, 2], // after the real pattern it ties with
      ['delta happened', 1],
    ]);
    expect(miner.patterns()[1]).toMatchObject({ sampleLine: 'beta happened', firstMs: 2, lastMs: 3 });
  });

  it('gives a pattern that first appears after the cap its own cluster', () => {
    const miner = new DrainMiner({ maxClusters: 3 });
    for (const w of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) miner.add(`${w} only once here`, 0);
    miner.add('fatal error in module x', 10);
    miner.add('fatal error in module y', 11);
    const patterns = miner.patterns();
    expect(patterns[0]).toMatchObject({ template: OVERFLOW_TEMPLATE, overflow: true, count: 3, firstMs: 0, lastMs: 0 });
    expect(patterns[1]).toMatchObject({ template: 'fatal error in module <*>', count: 2, firstMs: 10, lastMs: 11 });
    expect(miner.stats().clusters).toBe(3);
  });
});

describe('determinism and options', () => {
  it('gives identical patterns and ids for identical input', () => {
    const make = (): string[] => {
      const rnd = generator(99);
      const verbs = ['started', 'stopped', 'failed', 'retried'];
      const lines: string[] = [];
      for (let i = 0; i < 3000; i++) {
        const v = verbs[Math.floor(rnd() * verbs.length)];
        if (rnd() < 0.5) lines.push(`job ${Math.floor(rnd() * 1e6)} ${v} on host-${Math.floor(rnd() * 9)}`);
        else lines.push(`{"level":"${rnd() < 0.8 ? 'info' : 'error'}","msg":"task ${v}","attempt":${Math.floor(rnd() * 5)}}`);
      }
      return lines;
    };
    const options: DrainOptions = { maxClusters: 5, timeBuckets: { startMs: 1000, endMs: 4000, count: 6 } };
    expect(mine(make(), options)).toEqual(mine(make(), options));
  });

  it('rejects options out of range', () => {
    expect(() => new DrainMiner({ depth: 2 })).toThrow(RangeError);
    expect(() => new DrainMiner({ similarity: 0 })).toThrow(RangeError);
    expect(() => new DrainMiner({ maxClusters: 0 })).toThrow(RangeError);
    expect(() => new DrainMiner({ maxChildren: 1 })).toThrow(RangeError);
    expect(() => new DrainMiner({ timeBuckets: { startMs: 10, endMs: 0, count: 1 } })).toThrow(RangeError);
    expect(() => new DrainMiner({ timeBuckets: { startMs: 0, endMs: 10, count: 0 } })).toThrow(RangeError);
  });
});
