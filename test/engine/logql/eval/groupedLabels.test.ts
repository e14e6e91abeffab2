import { describe, expect, it } from 'vitest';
import { LabelCache, LabelsBuilder } from '../../../../engine/logql/eval/index.js';
import type { GroupingSpec } from '../../../../engine/logql/eval/labelsBuilder.js';
import { SeededRandom } from '../../../support/seededRandom.js';

/**
 * A line's labels reduced by `by (…)`: one label's results are kept per value by the stream
 * (groupedByOne), and must be the very sets interning gives, whatever the line did to the
 * label (parsed over the stream's, emptied, deleted) and across groupings.
 */
describe('labels grouped by one name', () => {
  it('are the interned sets of the label’s current value, absent when the line has none', () => {
    const cache = new LabelCache();
    const builder = new LabelsBuilder({ app: 'x', route: 'stream' }, cache);
    const byRoute: GroupingSpec = { without: false, names: ['route'] };
    const byLevel: GroupingSpec = { without: false, names: ['level'] };
    const random = new SeededRandom(5);
    for (let n = 0; n < 2000; n++) {
      builder.reset();
      const action = random.int(0, 4);
      if (action === 1) builder.set('route', random.pick(['/a', '/b', '']));
      if (action === 2) builder.del('route');
      if (action === 3) builder.set('level', random.pick(['info', 'error']));
      for (const grouping of random.chance(0.5) ? [byRoute, byLevel] : [byLevel, byRoute]) {
        const name = grouping.names[0];
        const value = builder.get(name);
        const expected = value === undefined ? cache.intern([], []) : cache.intern([name], [value]);
        expect(builder.grouped(grouping), `line ${n} action ${action} ${name}`).toBe(expected);
      }
    }
  });

  it('keep a line with an error whole, so the error reaches the result', () => {
    const cache = new LabelCache();
    const builder = new LabelsBuilder({ app: 'x' }, cache);
    builder.reset();
    builder.set('route', '/a');
    builder.setError('JSONParserErr');
    expect(builder.grouped({ without: false, names: ['route'] }).labels).toEqual({ __error__: 'JSONParserErr', app: 'x', route: '/a' });
  });
});
