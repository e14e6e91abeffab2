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

const TAG = /^(?:W\/)?"?([0-9]{1,15})"?$/;

/**
 * parseIfMatch reads a comma-separated list of entity tags. Beyond the strict `"3"` form it
 * accepts `3` and `W/"3"`, since hand-written requests drop the quotes and some proxies weaken
 * tags; a tag that names no version can never match, so it is kept out of the list.
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
