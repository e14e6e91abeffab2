import { describe, expect, it } from 'vitest';
import { MESSAGE_BLOCK_BYTES, MessageBlocks, encodeMessages } from '../../../engine/storage/messageBlocks.js';

/**
 * Message blocks decode a block of ASCII lines as latin1 and any other as UTF-8: every line must
 * read back as written, whichever blocks hold text beyond ASCII, and a line alone in a block.
 */
describe('message blocks', () => {
  it('reads every line back as written, ASCII blocks and blocks with other characters alike', () => {
    const long = 'x'.repeat(MESSAGE_BLOCK_BYTES / 4);
    const messages: string[] = [];
    for (let i = 0; i < 400; i++) messages.push(i % 97 === 5 ? `line ${i} café ✓ 🚀 ${long}` : `line ${i} plain ${long}`);
    messages.push('', 'é', 'a\u0000b', '\u007f', `${'é'.repeat(MESSAGE_BLOCK_BYTES)}`);
    const encoded = encodeMessages(messages);
    expect(encoded.rowEnd.length).toBeGreaterThan(10);
    const blocks = new MessageBlocks(encoded.messageEnd, encoded.rowEnd, encoded.compressedEnd, encoded.compressed);
    // In row order, then backwards, so blocks are met both first and again.
    expect(messages.map((_, row) => blocks.get(row))).toEqual(messages);
    for (let row = messages.length - 1; row >= 0; row--) expect(blocks.get(row)).toBe(messages[row]);
  });
});
