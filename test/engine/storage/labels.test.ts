import { describe, expect, it } from 'vitest';
import { labelsKey } from '../../../engine/storage/labels.js';

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

  it('is stable for equal label sets', () => {
    expect(labelsKey({ job: 'api', le: '0.5' })).toBe(labelsKey({ job: 'api', le: '0.5' }));
  });
});
