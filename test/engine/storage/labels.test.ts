import { describe, expect, it } from 'vitest';
import { labelsFromKey, labelsKey } from '../../../engine/storage/labels.js';

describe('labelsKey', () => {
  it('tells apart label sets whose text would read the same when joined', () => {
    const sets: Array<Record<string, string>> = [
      { a: 'v', b: 'c' },
      { a: 'vþb\xffc' },
      { a: 'v\u0000b\u0001c' },
      { a: 'v\u0001b', b: 'c' },
      { 'a\u0001v': 'b' },
      { a: 'v\u0002' },
      { a: 'v\u00020' },
      { a: '' },
      {},
    ];
    const keys = sets.map(labelsKey);
    expect(new Set(keys).size).toBe(sets.length);
  });

  it('reads back into the same labels, separators and __proto__ included', () => {
    const sets: Array<Record<string, string>> = [
      { a: 'v', b: 'c' },
      { a: 'v\u0000b\u0001c' },
      { 'a\u0001v': 'b\u0002', c: '\u00020' },
      { a: '' },
      {},
      JSON.parse('{"__proto__":"x","b":"y"}') as Record<string, string>,
    ];
    for (const labels of sets) {
      const back = labelsFromKey(labelsKey(labels));
      expect(Object.entries(back)).toEqual(Object.entries(labels));
      expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    }
    expect(() => labelsFromKey('a\u0001b')).toThrow(/malformed/);
  });

  it('is stable for equal label sets', () => {
    expect(labelsKey({ job: 'api', le: '0.5' })).toBe(labelsKey({ job: 'api', le: '0.5' }));
  });
});
