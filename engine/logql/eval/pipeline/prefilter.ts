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
 *
 * A label those filters want equal to a text can only take it from the line, in a stream
 * without that label, if the line holds the text or an escape (JSON's and logfmt's values are
 * the line's bytes between their delimiters unless escaped): lines of such streams without
 * either are dropped by a line filter first, which searches stored bytes natively (`| json |
 * trace_id="4bf92f35"` reads about as fast as `|= "4bf92f35"`). Metric queries get these line
 * filters too (textFiltered).
 */
import type { LabelFilterExpr, LineFilterStage, PipelineStage } from '../../ast.js';
import type { MemoryBudget } from '../../../common/memoryBudget.js';
import type { Labels } from '../../../storage/labels.js';
import type { LineMatch } from '../../../storage/lineMatch.js';
import type { LabelCache } from '../labelsBuilder.js';
import { compileRegex } from '../../../regex/index.js';
import { CompiledPipeline, type StreamPipeline } from './pipeline.js';

/**
 * TextFiltered is a pipeline built twice: as written, and after line filters for the texts its
 * opening label filters want (one per text: the text, or an escape). A stream carrying none of
 * those labels runs the second, any other the first, since its own label is what the filter reads.
 */
export class TextFiltered {
  readonly readsAscii: boolean;
  readonly readsTimestamp: boolean;

  constructor(
    readonly plain: CompiledPipeline,
    private readonly filtered: CompiledPipeline,
    private readonly labels: readonly string[],
  ) {
    this.readsAscii = plain.readsAscii && filtered.readsAscii;
    this.readsTimestamp = plain.readsTimestamp || filtered.readsTimestamp;
  }

  /** forStream prepares the pipeline a stream with these labels runs. */
  forStream(tags: Labels, cache: LabelCache): StreamPipeline {
    return this.runBy(tags).forStream(tags, cache);
  }

  /** openingLinesFor is the opening literal filters (CompiledPipeline.openingLines) of the pipeline a stream with these labels runs. */
  openingLinesFor(tags: Labels): LineMatch | undefined {
    return this.runBy(tags).openingLines;
  }

  private runBy(tags: Labels): CompiledPipeline {
    const carried = this.labels.some((name) => Object.prototype.hasOwnProperty.call(tags, name));
    return carried ? this.plain : this.filtered;
  }
}

/** textFiltered builds `stages` with `build`, and again after the line filters for the texts their opening label filters want. */
export function textFiltered(stages: readonly PipelineStage[], build: (stages: readonly PipelineStage[]) => CompiledPipeline): TextFiltered {
  const plain = build(stages);
  const { wantedTexts } = openingOf(stages);
  if (wantedTexts.length === 0) return new TextFiltered(plain, plain, []);
  const pos = stages[0].pos;
  const filters: LineFilterStage[] = wantedTexts.map(({ texts }) => ({ kind: 'LineFilter', op: '|=', values: [...texts, ESCAPE].map((text) => literal(text, pos)), pos }));
  return new TextFiltered(plain, build([...filters, ...stages]), [...new Set(wantedTexts.map((w) => w.label))]);
}

/**
 * prefilterOf is the prefilter of a raw query's pipeline, or undefined when the pipeline does
 * not open with a parser (json or logfmt, without extraction parameters) followed by a label
 * filter the prefilter can decide.
 */
export function prefilterOf(stages: readonly PipelineStage[], memory?: MemoryBudget): TextFiltered | undefined {
  const { end, deciding } = openingOf(stages);
  if (!deciding) return undefined;
  // Line filters after the last label filter are kept: they drop lines too, and run first.
  return textFiltered(stages.slice(0, end), (opening) => new CompiledPipeline(opening, { labelsRead: [], memory }));
}

/**
 * Opening is what a pipeline opens with: `end`, the stages up to the first that is not a line
 * filter, the first parser without extraction parameters, or a label filter deciding without
 * errors; whether a label filter comes after that parser (`deciding`); and the texts those
 * filters want labels equal to, by label.
 */
interface Opening {
  end: number;
  deciding: boolean;
  wantedTexts: WantedTexts[];
}

/** WantedTexts says a line passes only if `label` equals one of `texts` (none empty). */
interface WantedTexts {
  label: string;
  texts: readonly string[];
}

function openingOf(stages: readonly PipelineStage[]): Opening {
  let parsed = false;
  let end = 0;
  let deciding = false;
  const wantedTexts: WantedTexts[] = [];
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
        deciding = true;
        addWantedTexts(stage.filter, wantedTexts);
      }
      continue;
    }
    break;
  }
  return { end, deciding, wantedTexts };
}

/** ESCAPE starts an escape in JSON strings and quoted logfmt values. */
const ESCAPE = '\\';

function literal(value: string, pos: LineFilterStage['pos']): LineFilterStage['values'][number] {
  return { kind: 'LineFilterLiteral', value, pos };
}

/**
 * addWantedTexts adds to `out` the texts a filter wants labels equal to for a line to pass:
 * those of `name="text"` and of `name=~"regex"` whose regex matches a few fixed strings
 * (`"GET|POST"`), on both sides of an `and`; none when one of them is empty (a missing label
 * equals it).
 */
function addWantedTexts(filter: LabelFilterExpr, out: WantedTexts[]): void {
  if (filter.kind === 'BinaryLabelFilter') {
    if (filter.op !== 'and') return;
    addWantedTexts(filter.left, out);
    addWantedTexts(filter.right, out);
  } else if (filter.kind === 'StringLabelFilter') {
    const texts = filter.op === '=' ? [filter.value] : filter.op === '=~' ? compileRegex(filter.value, { anchored: true }).literalSet : undefined;
    if (texts !== undefined && texts.length > 0 && !texts.includes('')) out.push({ label: filter.name, texts });
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
