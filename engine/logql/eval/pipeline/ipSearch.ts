/**
 * Finding IP addresses inside arbitrary text for `ip("…")` filters, as Loki does: scan for
 * something that looks like the start of an IPv4 or IPv6 address, take the longest run of
 * address characters, parse it, and test it against the pattern. No regular expression is
 * involved, so a long line is scanned once.
 */
import { compareIpAddresses, parseIpAddress } from '../../ipPattern.js';
import type { IpAddress, IpPattern } from '../../ipPattern.js';

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHexCode(c: number): boolean {
  return isDigitCode(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isIpv4Char(c: number): boolean {
  return isDigitCode(c) || c === 46;
}

function isIpv6Char(c: number): boolean {
  return isHexCode(c) || c === 58 || c === 46;
}

/** ipContains reports whether `address` falls inside `pattern` (same family only, as netip). */
export function ipContains(pattern: IpPattern, address: IpAddress): boolean {
  if (address.zone !== undefined) return false;
  switch (pattern.kind) {
    case 'address':
      return pattern.address.bytes.length === address.bytes.length && compareIpAddresses(pattern.address, address) === 0;
    case 'prefix': {
      const p = pattern.address.bytes;
      const a = address.bytes;
      if (p.length !== a.length) return false;
      let bits = pattern.bits;
      for (let i = 0; i < p.length && bits > 0; i++) {
        const take = Math.min(8, bits);
        const mask = (0xff << (8 - take)) & 0xff;
        if ((p[i] & mask) !== (a[i] & mask)) return false;
        bits -= take;
      }
      return true;
    }
    case 'range':
      return (
        pattern.from.bytes.length === address.bytes.length &&
        compareIpAddresses(pattern.from, address) <= 0 &&
        compareIpAddresses(address, pattern.to) <= 0
      );
  }
}

/** textContainsIp reports whether `text` holds an address matching `pattern` anywhere. */
export function textContainsIp(text: string, pattern: IpPattern): boolean {
  const n = text.length;
  const at = (i: number): number => (i < n ? text.charCodeAt(i) : 0);
  const tryAt = (start: number, v4: boolean): { ok: boolean; len: number } => {
    let end = start;
    while (end < n && (v4 ? isIpv4Char(text.charCodeAt(end)) : isIpv6Char(text.charCodeAt(end)))) end++;
    const address = parseIpAddress(text.slice(start, end));
    if (address !== undefined && ipContains(pattern, address)) return { ok: true, len: 0 };
    return { ok: false, len: end - start };
  };
  for (let i = 0; i < n; i++) {
    const c0 = text.charCodeAt(i);
    if (i + 3 < n && isDigitCode(c0) && (at(i + 1) === 46 || at(i + 2) === 46 || at(i + 3) === 46)) {
      const r = tryAt(i, true);
      if (r.ok) return true;
      i += r.len;
      continue;
    }
    const c1 = at(i + 1);
    const c2 = at(i + 2);
    const c3 = at(i + 3);
    const c4 = at(i + 4);
    const v6 =
      (c0 === 58 && c1 === 58 && isHexCode(c2)) ||
      (isHexCode(c0) && c1 === 58) ||
      (isHexCode(c0) && isHexCode(c1) && c2 === 58) ||
      (isHexCode(c0) && isHexCode(c1) && isHexCode(c2) && c3 === 58) ||
      (isHexCode(c0) && isHexCode(c1) && isHexCode(c2) && isHexCode(c3) && c4 === 58);
    if (v6) {
      const r = tryAt(i, false);
      if (r.ok) return true;
      i += r.len;
    }
  }
  return false;
}
