/**
 * AsciiStrings turns short runs of ASCII bytes into strings, handing back the string made for
 * the same bytes before when it can. A parser reading lines from their stored bytes makes
 * label values this way: they repeat from line to line (a route, a status, a level), and
 * making a string from a Buffer costs a call into the runtime (about 35 ns for a few bytes),
 * where comparing a few bytes with the string kept for them costs a few.
 *
 * The table is direct-mapped by a hash of the bytes: a value met again finds its slot unless
 * another took it since, which only costs making the string again.
 */

/** SLOTS is the table's size, a power of two: more distinct values than a grouped query keeps apart. */
const SLOTS = 1024;

/** LONGEST is the longest run kept: longer values (messages, ids) rarely repeat and are made directly. */
const LONGEST = 48;

export class AsciiStrings {
  private readonly strings: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);

  /** text is the string of the ASCII bytes [start, end) of `bytes`. */
  text(bytes: Uint8Array, start: number, end: number): string {
    const length = end - start;
    if (length > LONGEST) return latin1(bytes, start, end);
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
    const slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
    const kept = this.strings[slot];
    if (kept !== undefined && kept.length === length && sameBytes(kept, bytes, start)) return kept;
    const made = latin1(bytes, start, end);
    this.strings[slot] = made;
    return made;
  }
}

/** sameBytes tells whether `text` is the bytes at `start` (the caller checked the length). */
function sameBytes(text: string, bytes: Uint8Array, start: number): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) !== bytes[start + k]) return false;
  return true;
}

/** latin1 makes the string of bytes [start, end), each byte one character (ASCII reads the same). */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.prototype.latin1Slice.call(bytes, start, end) as string;
}
