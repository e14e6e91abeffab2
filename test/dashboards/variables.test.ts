import { describe, expect, it } from 'vitest';
import { findVariableReferences, substitutePlaceholders } from '../../src/dashboards/index.js';
import { editDistance, suggestClosest } from '../../src/suggest.js';
import { etagOf, parseIfMatch } from '../../src/dashboards/preconditions.js';

describe('variable references', () => {
  it('finds $name and ${name} with their offsets and context', () => {
    const text = 'sum by (${by}) (rate(m{job="$job", x=~"a|${alt}"}[$window])) / $scale';
    const refs = findVariableReferences(text);
    expect(refs.map((r) => [r.name, r.context, text.slice(r.start, r.end)])).toEqual([
      ['by', 'bare', '${by}'],
      ['job', 'quoted', '$job'],
      ['alt', 'quoted', '${alt}'],
      ['window', 'range', '$window'],
      ['scale', 'bare', '$scale'],
    ]);
  });

  it('leaves $1, a lone $, regex anchors and escaped quotes alone', () => {
    expect(findVariableReferences('label_replace(m, "dst", "$1", "src", "(.*)")')).toEqual([]);
    expect(findVariableReferences('m{path=~"/api$", a="$"}')).toEqual([]);
    const refs = findVariableReferences('{a="say \\"$who\\" now"} |= `$raw` | b="${c}"');
    expect(refs.map((r) => [r.name, r.context])).toEqual([
      ['who', 'quoted'],
      ['raw', 'quoted'],
      ['c', 'quoted'],
    ]);
  });

  it('does not take a "[" inside quotes for a range', () => {
    const refs = findVariableReferences('m{a=~"[a-z]+"} * $k');
    expect(refs.map((r) => r.context)).toEqual(['bare']);
  });

  it('substitutes placeholders of exactly the reference length', () => {
    const text = 'sum(rate(${metric}{job="$job"}[${w}])) > $t';
    const out = substitutePlaceholders(text);
    expect(out.text).toHaveLength(text.length);
    expect(out.text).toBe('sum(rate(__metric_{job="xxxx"}[001m])) > _t');
    expect(out.guessed).toBe(true);
  });

  it('marks substitutions inside quotes and ranges as reliable', () => {
    const out = substitutePlaceholders('rate(m{job="$job"}[$w])');
    expect(out.text).toBe('rate(m{job="xxxx"}[1m])');
    expect(out.guessed).toBe(false);
  });

  it('returns text without references unchanged', () => {
    expect(substitutePlaceholders('up == 1')).toEqual({ text: 'up == 1', references: [], guessed: false });
  });
});

describe('suggestions', () => {
  it('counts a swap of neighbouring letters as one edit', () => {
    expect(editDistance('job', 'jbo')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests only close matches', () => {
    expect(suggestClosest('tittle', ['title', 'queries'])).toBe('title');
    expect(suggestClosest('Title', ['title'])).toBe('title');
    expect(suggestClosest('xyz', ['title', 'queries'])).toBeUndefined();
    expect(suggestClosest('ab', ['cd'])).toBeUndefined();
  });
});

describe('If-Match', () => {
  it('renders versions as strong ETags', () => {
    expect(etagOf(3)).toBe('"3"');
  });

  it('reads the forms clients send', () => {
    expect(parseIfMatch('"3"')).toEqual({ any: false, versions: [3] });
    expect(parseIfMatch('3')).toEqual({ any: false, versions: [3] });
    // If-Match compares strongly: a weak tag can never match, so it names no version.
    expect(parseIfMatch('W/"4"')).toEqual({ any: false, versions: [] });
    expect(parseIfMatch('W/"4", "5"')).toEqual({ any: false, versions: [5] });
    expect(parseIfMatch('"1", "2"')).toEqual({ any: false, versions: [1, 2] });
    expect(parseIfMatch('*')).toEqual({ any: true });
    expect(parseIfMatch('"abc"')).toEqual({ any: false, versions: [] });
  });
});
