import { describe, expect, it } from 'vitest';
import { ALL_FEATURES_ON, parseAndCheckPromQL, parsedPromQL, parseOptionsFor } from '../../../engine/promql/index.js';
import { EngineError } from '../../../engine/errors.js';

describe('parsedPromQL', () => {
  it('hands out one checked tree per text and options, equal to a fresh parse', () => {
    const text = 'sum by (job) (rate(http_requests_total{code=~"5.."}[5m]))';
    const first = parsedPromQL(text);
    expect(parsedPromQL(text)).toBe(first);
    expect(first).toEqual(parseAndCheckPromQL(text));
    const allOn = parsedPromQL(text, ALL_FEATURES_ON);
    expect(allOn).not.toBe(first);
    expect(parsedPromQL(text, { ...ALL_FEATURES_ON })).toBe(allOn);
  });

  it('freezes the shared tree, so no holder can change it for the others', () => {
    const expr = parsedPromQL('max_over_time(up{job="a"}[10m])');
    expect(Object.isFrozen(expr)).toBe(true);
    expect(() => {
      (expr as { type: string }).type = 'NumberLiteral';
    }).toThrow(TypeError);
    expect(expr.type).toBe('Call');
  });

  it('keeps no failure: a bad text fails every time with its position', () => {
    for (let i = 0; i < 2; i++) {
      let caught: unknown;
      try {
        parsedPromQL('sum(rate(x[5m])');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(EngineError);
      expect((caught as EngineError).position).toBeDefined();
    }
  });

  it('parses a text again under options that reject what others admit', () => {
    const text = 'mad_over_time(up[5m])';
    expect(parsedPromQL(text, ALL_FEATURES_ON).type).toBe('Call');
    expect(() => parsedPromQL(text, { ...parseOptionsFor([]), experimentalFunctions: false })).toThrow(EngineError);
  });

  it('stays bounded: the oldest of many texts is parsed again', () => {
    const oldest = parsedPromQL('up{n="0"}');
    for (let i = 1; i <= 300; i++) parsedPromQL(`up{n="${i}"}`);
    const again = parsedPromQL('up{n="0"}');
    expect(again).not.toBe(oldest);
    expect(again).toEqual(oldest);
  });
});
