import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../bench/peers/options.js';

describe('peer benchmark options', () => {
  it('passes --node-args to this build as separate arguments, and none by default', () => {
    expect(parseOptions([], '/tmp/out').nodeArgs).toEqual([]);
    const options = parseOptions(['--suites', 'concurrency', '--node-args', ' --single-threaded-gc  --max-semi-space-size=32 ', '--baseline', '/tmp/base'], '/tmp/out');
    expect(options.nodeArgs).toEqual(['--single-threaded-gc', '--max-semi-space-size=32']);
    expect(options.baseline).toBe('/tmp/base');
    expect(options.suites).toEqual(['concurrency']);
    // A single flag needs no quotes: the next argument is the value whatever it starts with.
    expect(parseOptions(['--node-args', '--cpu-prof'], '/tmp/out').nodeArgs).toEqual(['--cpu-prof']);
  });
});
