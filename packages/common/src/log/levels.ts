import { badRequest } from '../errors/index.js';

/** The levels of the spec, most severe first. */
export const LOG_LEVELS = ['error', 'warning', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Lower is more severe; a logger emits an entry when its severity is at most the module's threshold. */
export const SEVERITY: Readonly<Record<LogLevel, number>> = { error: 0, warning: 1, info: 2, debug: 3 };

/**
 * Input spellings accepted besides the four levels: the Go services' zap/logutil names (`WARN`, `CRITICAL`,
 * `FATAL`, `PANIC`, `DPANIC`) and `TRACE`, which has no level of its own here.
 */
const ALIASES: Readonly<Record<string, LogLevel>> = {
  error: 'error',
  critical: 'error',
  fatal: 'error',
  panic: 'error',
  dpanic: 'error',
  warning: 'warning',
  warn: 'warning',
  info: 'info',
  debug: 'debug',
  trace: 'debug',
};

/** Reads a level case-insensitively; an unknown word is a `bad_request` AppError naming the valid ones. */
export function parseLogLevel(text: string): LogLevel {
  const level = ALIASES[text.trim().toLowerCase()];
  if (level === undefined)
    throw badRequest(`unknown log level ${JSON.stringify(text.trim())}; use one of ${LOG_LEVELS.join(', ')}`);
  return level;
}
