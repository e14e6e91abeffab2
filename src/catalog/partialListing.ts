/**
 * A listing on a query process reads the segments the catalog names and the heads the
 * ingesters hold. When a holder could not be read (an ingester down, a partition without a
 * live lease), what was written to it and not cut yet is missing from the listing, exactly as
 * it is missing from a query's answer. Queries say so (a `done` with status error, a
 * Prometheus warning, a Loki 503); listings say so with the same words, so a label browser
 * that shows fewer values than exist is never taken for the whole truth.
 */

/** partialListingWarnings is the warning a listing carries when `unavailable` holders could not be read; none when all were. */
export function partialListingWarnings(unavailable: readonly string[]): string[] {
  if (unavailable.length === 0) return [];
  return [`${unavailable.length} holder(s) of recent data could not be read; the listing is partial and may lack what was written in the last minutes`];
}
