import { formatLogSpec, parseLogSpec } from '../../log/index.js';
import { opt } from '../options.js';

/**
 * `--log-level` (env `LOG_LEVEL` besides the prefixed name) and `--log-format`. `example` is a per-module
 * spec naming one of the service's modules; `levels` and `short` keep a service's historical wording and alias.
 */
export function logOptions(level: { example: string; levels?: string; short?: string }) {
  return {
    logLevel: opt.custom({
      flag: 'log-level',
      ...(level.short === undefined ? {} : { short: level.short }),
      env: ['LOG_LEVEL'],
      type: 'level spec',
      default: 'info',
      parse: parseLogSpec,
      format: formatLogSpec,
      help: `log levels: ${level.levels ?? 'error, warning, info or debug'}, optionally per module (${level.example})`,
    }),
    // One variable for every service, as LOG_LEVEL: a deployment sets LOG_FORMAT once.
    logFormat: opt.enum(['json', 'text'] as const, {
      flag: 'log-format',
      env: ['LOG_FORMAT'],
      help: 'log line format (default: text on a terminal, json otherwise)',
    }),
  };
}
