/**
 * SharedExtractions lets the evaluations of one task read a range's lines once for several
 * range aggregations over it. A sharded average is evaluated as two parts, the sum of its
 * samples and their count (shards.ts logShardForm), which select the same range with the same
 * grouping: without sharing, each part extracted every line again and the two shards together
 * did the work of one evaluation twice.
 */
import type { Grouping, LogRangeExpr } from '../../ast.js';
import type { SeriesSamples } from './extract.js';

/** Extraction is what decides a range's samples besides the range itself. */
interface Extraction {
  grouping: Grouping | undefined;
  pushedDown: Grouping | undefined;
  baseNs: bigint;
  maxNs: bigint;
  samples: SeriesSamples[];
}

export class SharedExtractions {
  private readonly kept = new Map<LogRangeExpr, Extraction>();

  /**
   * samples returns the samples an earlier evaluation extracted for `range` under the same
   * grouping and times (reused: true), else extracts them with `extract` and keeps them.
   */
  samples(range: LogRangeExpr, grouping: Grouping | undefined, pushedDown: Grouping | undefined, baseNs: bigint, maxNs: bigint, extract: () => SeriesSamples[]): { samples: SeriesSamples[]; reused: boolean } {
    const kept = this.kept.get(range);
    if (kept !== undefined && kept.grouping === grouping && kept.pushedDown === pushedDown && kept.baseNs === baseNs && kept.maxNs === maxNs) return { samples: kept.samples, reused: true };
    const samples = extract();
    this.kept.set(range, { grouping, pushedDown, baseNs, maxNs, samples });
    return { samples, reused: false };
  }
}
