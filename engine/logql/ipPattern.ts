/**
 * The operand of `ip("…")`: a single address, a CIDR prefix or an inclusive range
 * `from-to`, with Go's net/netip rules (no leading zeros in IPv4 octets, one `::` in IPv6,
 * an optional zone only on a single address). Parsed once at query parse time so a bad
 * pattern is reported before anything runs and the evaluator gets the bytes ready to compare.
 */

/** IpAddress is an address in network byte order: 4 bytes for IPv4, 16 for IPv6. */
export interface IpAddress {
  bytes: Uint8Array;
  zone?: string;
}

/** IpPattern is what an `ip()` operand matches. */
export type IpPattern =
  | { kind: 'address'; address: IpAddress }
  | { kind: 'prefix'; address: IpAddress; bits: number }
  | { kind: 'range'; from: IpAddress; to: IpAddress };

/** parseIPv4 reads dotted-quad IPv4, rejecting leading zeros as netip does. */
function parseIPv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i];
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part[0] === '0')) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes[i] = value;
  }
  return bytes;
}

/** parseIPv6 reads IPv6 text (with `::` and an optional trailing dotted IPv4). */
function parseIPv6(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(16);
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string, allowV4: boolean): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      if (allowV4 && i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIPv4(piece);
        if (!v4) return undefined;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0], halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1], true) : [];
  if (!head || !tail) return undefined;
  const total = head.length + tail.length;
  if (halves.length === 2 ? total > 7 : total !== 8) return undefined;
  const groups = [...head, ...new Array<number>(8 - total).fill(0), ...tail];
  for (let i = 0; i < 8; i++) {
    bytes[2 * i] = groups[i] >> 8;
    bytes[2 * i + 1] = groups[i] & 0xff;
  }
  return bytes;
}

/** parseIpAddress reads one IPv4 or IPv6 address, with a zone only when `allowZone`. */
export function parseIpAddress(text: string, allowZone = true): IpAddress | undefined {
  if (text.includes(':')) {
    const zoneAt = text.indexOf('%');
    if (zoneAt >= 0) {
      const zone = text.slice(zoneAt + 1);
      if (!allowZone || zone === '') return undefined;
      const bytes = parseIPv6(text.slice(0, zoneAt));
      return bytes ? { bytes, zone } : undefined;
    }
    const bytes = parseIPv6(text);
    return bytes ? { bytes } : undefined;
  }
  const bytes = parseIPv4(text);
  return bytes ? { bytes } : undefined;
}

/** compareIpAddresses orders two addresses of the same family byte by byte. */
export function compareIpAddresses(a: IpAddress, b: IpAddress): number {
  for (let i = 0; i < a.bytes.length; i++) {
    if (a.bytes[i] !== b.bytes[i]) return a.bytes[i] - b.bytes[i];
  }
  return 0;
}

/**
 * parseIpPattern reads an `ip()` operand, trying a single address, then a prefix, then a
 * range (the order Loki tries them). Returns undefined for anything else, which Loki reports
 * as `ip: invalid pattern`.
 */
export function parseIpPattern(text: string): IpPattern | undefined {
  const address = parseIpAddress(text);
  if (address) return { kind: 'address', address };

  const slash = text.indexOf('/');
  if (slash >= 0) {
    const prefixAddress = parseIpAddress(text.slice(0, slash), false);
    const bitsText = text.slice(slash + 1);
    if (!prefixAddress || !/^(?:0|[1-9]\d{0,2})$/.test(bitsText)) return undefined;
    const bits = Number(bitsText);
    if (bits > prefixAddress.bytes.length * 8) return undefined;
    return { kind: 'prefix', address: prefixAddress, bits };
  }

  const dash = text.indexOf('-');
  if (dash >= 0) {
    const from = parseIpAddress(text.slice(0, dash), false);
    const to = parseIpAddress(text.slice(dash + 1), false);
    if (!from || !to || from.bytes.length !== to.bytes.length) return undefined;
    if (compareIpAddresses(from, to) > 0) return undefined;
    return { kind: 'range', from, to };
  }
  return undefined;
}
