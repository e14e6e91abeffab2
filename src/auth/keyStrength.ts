/**
 * Rules for API keys an operator chooses (SVC_BOOTSTRAP_API_KEY, SVC_MCP_API_KEY). Keys Sluice
 * generates always pass. A key is refused when it is
 *   - shorter than MIN_KEY_LENGTH characters,
 *   - the placeholder shipped in k8s/sluice.yaml, or contains a placeholder word
 *     (change-me, replace-me, placeholder, example, ...), which means nobody replaced it,
 *   - made of fewer than MIN_DISTINCT_CHARS different characters ("aaaa…", "abab…", "0000…").
 * The distinct-character floor is far below what random keys have: 32 hex digits hold about 14
 * different characters, and fewer than 8 happens about once in thirty million draws.
 */
export const MIN_KEY_LENGTH = 32;
export const MIN_DISTINCT_CHARS = 8;

/** MANIFEST_PLACEHOLDER is the bootstrap key value k8s/sluice.yaml ships with. */
export const MANIFEST_PLACEHOLDER = 'replace-me-with-32-or-more-random-characters';

const PLACEHOLDER_WORDS = /change[-_ ]?me|replace[-_ ]?me|placeholder|example|your[-_ ]?(api[-_ ]?)?key|insert[-_ ]?key|<[^>]*>/i;

/** weakKeyReason says why `key` must not be used, or undefined when it is acceptable. */
export function weakKeyReason(key: string): string | undefined {
  if (key === MANIFEST_PLACEHOLDER) return 'is the placeholder from k8s/sluice.yaml; generate a key, e.g. `openssl rand -base64 32`';
  if (key.length < MIN_KEY_LENGTH) return `must be at least ${MIN_KEY_LENGTH} characters long (use 32+ random bytes, e.g. \`openssl rand -base64 32\`)`;
  if (PLACEHOLDER_WORDS.test(key)) return 'looks like a placeholder that was never replaced; generate a key, e.g. `openssl rand -base64 32`';
  if (new Set(key).size < MIN_DISTINCT_CHARS) {
    return `has fewer than ${MIN_DISTINCT_CHARS} different characters; generate a random key, e.g. \`openssl rand -base64 32\``;
  }
  return undefined;
}
