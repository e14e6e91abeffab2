/**
 * Optimistic concurrency for dashboards: a dashboard's version is its ETag, and a write that
 * names a stale version in If-Match is refused instead of silently overwriting someone else's
 * change.
 */

/** etagOf renders a version as a strong ETag, `"3"`. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** IfMatch is a parsed If-Match header: `*` (any current version), or the versions it names. */
export type IfMatch = { any: true } | { any: false; versions: number[] };

const TAG = /^"?([0-9]{1,15})"?$/;

/**
 * parseIfMatch reads a comma-separated list of entity tags. Beyond the strict `"3"` form it
 * accepts `3`, since hand-written requests drop the quotes. If-Match uses the strong comparison
 * (RFC 9110, section 13.1.1): a weak tag `W/"3"` never matches, because a weak validator only
 * promises an equivalent representation, not the exact version a write is based on. A tag that
 * cannot match is kept out of the list, so a header of weak tags alone is answered with 412.
 */
export function parseIfMatch(header: string): IfMatch {
  const versions: number[] = [];
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*') return { any: true };
    const m = TAG.exec(tag);
    if (m) versions.push(Number(m[1]));
  }
  return { any: false, versions };
}
