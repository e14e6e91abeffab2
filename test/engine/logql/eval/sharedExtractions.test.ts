import { describe, expect, it } from 'vitest';
import { evaluateLogQLInstant } from '../../../../engine/logql/eval/index.js';
import { SharedExtractions } from '../../../../engine/logql/eval/metric/sharedExtractions.js';
import type { BinaryExpr, Expr } from '../../../../engine/logql/ast.js';
import type { LogReader } from '../../../../engine/storage/logHead.js';
import { logShardForm } from '../../../../engine/query/shards.js';
import { BASE_MS, makeHead, parseChecked } from './helpers.js';

/**
 * A sharded average is evaluated as two parts, the sum and the count of its samples
 * (logShardForm); evaluations sharing SharedExtractions read the range's lines once for both,
 * and answer as each part alone does.
 */
describe('range samples shared between the parts of a task', () => {
  const head = makeHead([
    { tags: { app: 'a', route: '/x' }, line: 'took={{.i}}', atSec: 0, everySec: 10, count: 30 },
    { tags: { app: 'a', route: '/y' }, line: 'took=7', atSec: 5, everySec: 20, count: 15 },
  ]);
  /** counting wraps the head so reads of its lines are counted. */
  const counting = (): { reader: LogReader; reads: { count: number } } => {
    const reads = { count: 0 };
    return { reader: { select: (...args) => (reads.count++, head.select(...args)) }, reads };
  };
  const at = BASE_MS + 300_000;
  const values = (reader: LogReader, e: Expr, shared?: SharedExtractions) => {
    const out = evaluateLogQLInstant(e, reader, at, shared && { sharedExtractions: shared });
    return out.resultType === 'vector' ? out.series.map((s) => [JSON.stringify(s.labels), s.values[0]]) : [];
  };

  it('reads the lines once for the sum and the count of one average, with the answers each gives alone', () => {
    const form = logShardForm(parseChecked('avg_over_time({app="a"} | logfmt | unwrap took [5m]) by (route)')) as BinaryExpr;
    expect(form.kind).toBe('BinaryExpr');
    const alone = counting();
    const sum = values(alone.reader, form.lhs);
    const count = values(alone.reader, form.rhs);
    expect(alone.reads.count).toBe(2);
    expect(sum.length).toBe(2);

    const shared = new SharedExtractions();
    const together = counting();
    expect(values(together.reader, form.lhs, shared)).toEqual(sum);
    expect(values(together.reader, form.rhs, shared)).toEqual(count);
    expect(together.reads.count).toBe(1);
  });

  it('reads again for another range, even one written the same', () => {
    const query = 'avg_over_time({app="a"} | logfmt | unwrap took [5m]) by (route)';
    const first = logShardForm(parseChecked(query)) as BinaryExpr;
    const second = logShardForm(parseChecked(query)) as BinaryExpr;
    const shared = new SharedExtractions();
    const { reader, reads } = counting();
    values(reader, first.lhs, shared);
    values(reader, second.rhs, shared);
    expect(reads.count).toBe(2);
  });
});
