/**
 * compileStage turns one parsed stage into its Stage. The switch has a case for every kind of
 * the AST's PipelineStage union and no default branch, so adding a stage kind to the AST fails
 * to compile until it is given a Stage here, and with it a timestamp parameter and the
 * declarations of the Stage contract (stage.ts).
 */
import type { PipelineStage } from '../../ast.js';
import type { MemoryBudget } from '../../../common/memoryBudget.js';
import { Decolorize } from './decolorize.js';
import { DropLabels } from './dropLabels.js';
import { LabelFormat, LineFormat } from './formatStages.js';
import { JsonExpressionParser, JsonParser } from './jsonParser.js';
import { KeepLabels } from './keepLabels.js';
import { LabelFilter } from './labelFilter.js';
import { LineFilter, compileAsciiLineTest, compileLineTest } from './lineFilter.js';
import { LogfmtExpressionParser, LogfmtParser } from './logfmtParser.js';
import { PatternParser } from './patternParser.js';
import { RegexpParser } from './regexpParser.js';
import type { Stage } from './stage.js';
import { UnpackParser } from './unpackParser.js';

/** compileStage builds `stage`; `memory` bounds what line_format and label_format produce. */
export function compileStage(stage: PipelineStage, memory: MemoryBudget | undefined): Stage {
  switch (stage.kind) {
    case 'LineFilter':
      return new LineFilter(compileLineTest(stage), compileAsciiLineTest(stage));
    case 'JsonParser':
      return stage.extractions.length > 0 ? new JsonExpressionParser(stage.extractions) : new JsonParser();
    case 'LogfmtParser':
      return stage.extractions.length > 0
        ? new LogfmtExpressionParser(stage.extractions, stage.strict)
        : new LogfmtParser(stage.strict, stage.keepEmpty);
    case 'RegexpParser':
      return new RegexpParser(stage.regex);
    case 'PatternParser':
      return new PatternParser(stage.parsed);
    case 'UnpackParser':
      return new UnpackParser();
    case 'LabelFilterStage':
      return new LabelFilter(stage.filter);
    case 'LineFormat':
      return new LineFormat(stage, memory);
    case 'LabelFormat':
      return new LabelFormat(stage, memory);
    case 'DropLabels':
      return new DropLabels(stage.labels);
    case 'KeepLabels':
      return new KeepLabels(stage.labels);
    case 'Decolorize':
      return new Decolorize();
  }
}
