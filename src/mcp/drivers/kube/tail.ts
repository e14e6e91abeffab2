/**
 * Byte budgets for text bodies. Pod logs can be megabytes; an agent needs their end, so the
 * body is read to completion while only the newest bytes are held.
 */

/** TextBody is a text response cut to a byte budget. */
export interface TextBody {
  text: string;
  /** bytes is how many bytes the server sent, before cutting. */
  bytes: number;
  truncated: boolean;
}

/**
 * TailBuffer holds at most about twice its budget while a body streams in, then keeps the
 * newest `maxBytes` bytes, starting at a line boundary when it had to cut.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  total = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.held += chunk.length;
    this.total += chunk.length;
    if (this.held > 2 * this.maxBytes) {
      const all = Buffer.concat(this.chunks);
      const kept = all.subarray(all.length - this.maxBytes);
      this.chunks = [kept];
      this.held = kept.length;
    }
  }

  finish(): TextBody {
    let data = Buffer.concat(this.chunks);
    const truncated = this.total > this.maxBytes;
    if (truncated) {
      data = data.subarray(data.length - this.maxBytes);
      const newline = data.indexOf(0x0a);
      if (newline >= 0 && newline < data.length - 1) data = data.subarray(newline + 1);
      else {
        // One line longer than the budget: start at the next whole UTF-8 character instead.
        let start = 0;
        while (start < data.length && (data[start] & 0xc0) === 0x80) start++;
        data = data.subarray(start);
      }
    }
    return { text: data.toString('utf8'), bytes: this.total, truncated };
  }
}
