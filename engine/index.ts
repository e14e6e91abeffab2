/**
 * The engine's public surface: the service imports the engine only through this module, so
 * what is exported here is the whole contract between them.
 */
export {
  EngineError,
  compileError,
  formatPositionedError,
  lineColAt,
  syntaxError,
} from './errors.js';
export type { EngineErrorCode, LineCol, ParseErrorDetail, PositionRange } from './errors.js';
