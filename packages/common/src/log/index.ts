/**
 * Per-module winston loggers whose levels follow one runtime-changeable spec
 * (`module1=level1:module2=level2:defaultLevel`, served by the HTTP kit's `/loglevels`).
 */
export {
  getLogger,
  configureLogging,
  setLogLevels,
  currentLogSpec,
  levelOf,
  type Logger,
  type LogFields,
  type LogFormat,
  type LoggingOptions,
} from './logger.js';
export { LOG_LEVELS, parseLogLevel, type LogLevel } from './levels.js';
export { parseLogSpec, formatLogSpec, type LogLevelSpec } from './spec.js';
