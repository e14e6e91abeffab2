/**
 * A raw log query returns every label of the lines it keeps, so its parser extracts them all.
 * A search (`| json | trace_id="4bf92f35"`, `| logfmt | status >= 500`) keeps few of the lines
 * it reads, and most of that extraction is for lines a label filter then drops. The prefilter
 * is the pipeline's opening line filters, parser and label filters, with the parser told to
 * extract only the labels those filters read: it reads a line in a fraction of the time (from
 * its stored bytes where it can, see CompiledPipeline.readsAscii), and only the lines it keeps
 * go through the whole pipeline.
 *
 * A line the prefilter drops is one the whole pipeline drops: its filters are the whole
 * pipeline's first ones, they read only labels the parser extracts alike whether told to or
 * not (each wanted label's value comes from the same member, the first of its name), and none
 * of them depends on whether the parser failed, which the told parser may not find out (it
 * stops once it has its labels). That excludes filters on `__error__` and the other `__`
 * labels, and `ip()` filters, which keep any line with an error; the prefilter ends before
 * the first such filter, as it does at the first stage that is not a line filter, one parser
 * without extraction parameters, or a label filter.
 */
import type { LabelFilterExpr, LineFilterStage, PipelineStage } from '../../ast.js';
import type { MemoryBudget } from '../../../common/memoryBudget.js';
import type { Labels } from '../../../storage/labels.js';
import type { LabelCache } from '../labelsBuilder.js';
import { CompiledPipeline, type StreamPipeline } from './pipeline.js';

/**
 * Prefilter is a raw query's prefilter. A label the filters want equal to a text can only take
 * it from the line, in a stream without that label, if the line holds the text, or escapes
 * (JSON's and logfmt's values are the line's bytes between their delimiters unless escaped):
 * lines of such streams without either are dropped by a line filter first, which searches
 * stored bytes natively (`| json | trace_id="4bf92f35"` reads about as fast as `|= "4bf92f35"`).
 */
export class Prefilter {
  readonly readsAscii: boolean;
  readonly readsTimestamp: boolean;

  constructor(
    private readonly filters: CompiledPipeline,
    /** literalFilters is `filters` after line filters for the texts of `literalLabels`. */
    private readonly literalFilters: CompiledPipeline,
    private readonly literalLabels: readonly string[],
  ) {
    this.readsAscii = filters.readsAscii && literalFilters.readsAscii;
    this.readsTimestamp = filters.readsTimestamp || literalFilters.readsTimestamp;
  }

  /** forStream prepares the prefilter for one stream's labels: with the line filters when the stream carries none of their labels. */
  forStream(tags: Labels, cache: LabelCache): StreamPipeline {
    const carried = this.literalLabels.some((name) => Object.prototype.hasOwnProperty.call(tags, name));
    return (carried ? this.filters : this.literalFilters).forStream(tags, cache);
  }
}

/**
 * prefilterOf is the prefilter of a raw query's pipeline, or undefined when the pipeline does
 * not open with a parser (json or logfmt, without extraction parameters) followed by a label
 * filter the prefilter can decide.
 */
export function prefilterOf(stages: readonly PipelineStage[], memory?: MemoryBudget): Prefilter | undefined {
  let parsed = false;
  let end = 0;
  let decidingEnd = 0;
  const literals = new Map<string, Set<string>>();
  for (; end < stages.length; end++) {
    const stage = stages[end];
    if (stage.kind === 'LineFilter') continue;
    if ((stage.kind === 'JsonParser' || stage.kind === 'LogfmtParser') && stage.extractions.length === 0 && !parsed) {
      parsed = true;
      continue;
    }
    if (stage.kind === 'LabelFilterStage' && decidesWithoutErrors(stage.filter)) {
      // A filter before the parser reads the stream's labels; the parser's work is saved by those after it.
      if (parsed) {
        decidingEnd = end + 1;
        requiredTexts(stage.filter, literals);
      }
      continue;
    }
    break;
  }
  if (decidingEnd === 0) return undefined;
  // Line filters after the last label filter are kept: they drop lines too, and run first.
  const opening = stages.slice(0, end);
  const options = { labelsRead: [], memory };
  const pos = stages[0].pos;
  const literalFilters: LineFilterStage[] = [];
  for (const texts of literals.values()) {
    for (const text of texts) literalFilters.push({ kind: 'LineFilter', op: '|=', values: [literal(text, pos), literal(ESCAPE, pos)], pos });
  }
  const filters = new CompiledPipeline(opening, options);
  return new Prefilter(filters, literalFilters.length === 0 ? filters : new CompiledPipeline([...literalFilters, ...opening], options), [...literals.keys()]);
}

/** ESCAPE starts an escape in JSON strings and quoted logfmt values. */
const ESCAPE = '\\';

function literal(value: string, pos: LineFilterStage['pos']): LineFilterStage['values'][number] {
  return { kind: 'LineFilterLiteral', value, pos };
}

/**
 * requiredTexts adds to `out`, by label, the non-empty texts a filter requires labels to equal
 * for a line to pass: those of `name="text"`, on both sides of an `and`.
 */
function requiredTexts(filter: LabelFilterExpr, out: Map<string, Set<string>>): void {
  if (filter.kind === 'BinaryLabelFilter') {
    if (filter.op !== 'and') return;
    requiredTexts(filter.left, out);
    requiredTexts(filter.right, out);
  } else if (filter.kind === 'StringLabelFilter' && filter.op === '=' && filter.value !== '') {
    let texts = out.get(filter.name);
    if (texts === undefined) out.set(filter.name, (texts = new Set()));
    texts.add(filter.value);
  }
}
/** decidesWithoutErrors tells whether a label filter keeps or drops a line whatever errors the line carries. */
function decidesWithoutErrors(filter: LabelFilterExpr): boolean {
  switch (filter.kind) {
    case 'BinaryLabelFilter':
      return decidesWithoutErrors(filter.left) && decidesWithoutErrors(filter.right);
    case 'IpLabelFilter':
      return false;
    default:
      return !filter.name.startsWith('__');
  }
}
