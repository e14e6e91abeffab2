import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../../engine/storage/byteLru.js';

/** Growing stands for a segment reader whose decoded series add to its size while it is cached. */
class Growing {
  constructor(public byteSize: number) {}
}

describe('ByteLru', () => {
  it('evicts the least recently used entries past the budget', () => {
    const lru = new ByteLru<string, Growing>(100);
    lru.set('a', new Growing(40));
    lru.set('b', new Growing(40));
    lru.get('a');
    lru.set('c', new Growing(40));
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBeDefined();
    expect(lru.totalBytes).toBe(80);
  });

  it('counts growth after insertion at the next access and evicts others for it', () => {
    const lru = new ByteLru<string, Growing>(100);
    const a = new Growing(30);
    lru.set('a', a);
    lru.set('b', new Growing(30));
    a.byteSize = 60;
    expect(lru.get('a')).toBe(a);
    expect(lru.totalBytes).toBe(90);
    a.byteSize = 80;
    // An insertion re-reads every size: 80 + 30 + 10 is over budget, and b is the oldest.
    lru.set('c', new Growing(10));
    expect(lru.get('b')).toBeUndefined();
    expect(lru.totalBytes).toBe(90);
    lru.delete('a');
    expect(lru.totalBytes).toBe(10);
  });

  it('keeps a value larger than the budget until the next insertion', () => {
    const lru = new ByteLru<string, Growing>(10);
    lru.set('big', new Growing(50));
    expect(lru.get('big')).toBeDefined();
    lru.set('small', new Growing(5));
    expect(lru.get('big')).toBeUndefined();
    expect(lru.totalBytes).toBe(5);
  });
});
