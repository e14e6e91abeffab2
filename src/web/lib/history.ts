/**
 * Query history: the last queries run in Explore, per language, kept in this browser's
 * localStorage (queries are not secret; the API key never goes there).
 */
const MAX_ENTRIES = 30;

function storageKey(language: string): string {
  return `sluice.history.${language}`;
}

export function readHistory(language: string): string[] {
  try {
    const raw = localStorage.getItem(storageKey(language));
    const parsed = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function remember(language: string, query: string): string[] {
  const next = [query, ...readHistory(language).filter((q) => q !== query)].slice(0, MAX_ENTRIES);
  try {
    localStorage.setItem(storageKey(language), JSON.stringify(next));
  } catch {
    // A full or disabled storage only loses the history.
  }
  return next;
}
