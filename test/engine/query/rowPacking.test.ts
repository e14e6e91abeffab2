import { describe, expect, it } from 'vitest';
import { packRows, rowsTransferables, unpackRows, withLine } from '../../../engine/query/rowPacking.js';

describe('packed raw rows', () => {
  const rows: Array<{ timestampNs: bigint; tags: Record<string, string> }> = [
    { timestampNs: 1n, tags: { app: 'a', level: 'info', message: 'first ünïcødé line' } },
    { timestampNs: 2n, tags: { app: 'a', level: 'info', message: '' } },
    { timestampNs: 3n, tags: { app: 'b', level: 'info', message: 'x', message_extracted: 'parsed' } },
    { timestampNs: 4n, tags: { app: 'a', level: 'info' } },
    { timestampNs: 1_763_700_000_123_456_789n, tags: { app: 'a', level: 'info', message: '😀 {"json": true}' } },
  ];

  it('round-trips every row across a thread boundary, lines and their absence included', () => {
    const packed = packRows(rows);
    const moved = structuredClone(packed, { transfer: rowsTransferables(packed) });
    const back = unpackRows(moved);
    expect(back.map(withLine)).toEqual(rows.map((r) => r.tags));
    expect(back.map((r) => r.timestampNs)).toEqual(rows.map((r) => r.timestampNs));
    expect(back[3].line).toBeUndefined();
    expect(back[1].line).toBe('');
  });

  it('packs each tag set once and lets its rows share it', () => {
    const packed = packRows(rows);
    expect([...packed.tagSetIds]).toEqual([0, 0, 1, 0, 0]);
    const back = unpackRows(packed);
    expect(back[0].tags).toBe(back[4].tags);
    expect(back[0].tags).toEqual({ app: 'a', level: 'info' });
  });
});
