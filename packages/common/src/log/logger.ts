import type { Writable } from 'node:stream';
import winston from 'winston';
import { LOG_LEVELS, SEVERITY, type LogLevel } from './levels.js';
import { formatLogSpec, parseLogSpec, type LogLevelSpec } from './spec.js';

export type LogFields = Record<string, unknown>;
/** `json`: one JSON object per line (production). `text`: `time LEVEL [module] message key=value` (development). */
export type LogFormat = 'json' | 'text';

/**
 * A module's logger. Fields may be given as a function so building them costs nothing when the level
 * is disabled: `log.debug('batch cut', () => ({ size: batch.length, suffixes: batch.map(s) }))`.
 */
export interface Logger {
  readonly module: string;
  error(message: string, fields?: LogFields | (() => LogFields)): void;
  warn(message: string, fields?: LogFields | (() => LogFields)): void;
  info(message: string, fields?: LogFields | (() => LogFields)): void;
  debug(message: string, fields?: LogFields | (() => LogFields)): void;
  isEnabled(level: LogLevel): boolean;
}

export interface LoggingOptions {
  format?: LogFormat;
  /** A level spec (`mod=debug:info`) or a parsed one; rejected specs throw and change nothing. */
  levels?: string | LogLevelSpec;
  /** Where lines go; defaults to stdout. */
  destination?: Writable;
}

const WINSTON_LEVELS: Record<LogLevel, number> = { ...SEVERITY };

/** Per-module thresholds; `generation` lets each logger cache its threshold until a spec is applied. */
const state = {
  spec: { defaultLevel: 'info', modules: new Map() } as LogLevelSpec,
  generation: 0,
};

let root: winston.Logger | undefined;

function rootLogger(): winston.Logger {
  root ??= createRoot({});
  return root;
}

function createRoot(options: LoggingOptions): winston.Logger {
  return winston.createLogger({
    levels: WINSTON_LEVELS,
    // Filtering happens per module before winston is called; winston itself passes everything.
    level: 'debug',
    format: formatFor(options.format ?? (process.stdout.isTTY ? 'text' : 'json')),
    transports: [new winston.transports.Stream({ stream: options.destination ?? process.stdout })],
    exitOnError: false,
  });
}

function formatFor(format: LogFormat): winston.Logform.Format {
  if (format === 'json') return winston.format.json({ deterministic: false });
  return winston.format.printf((info) => {
    const { time, level, module, message, ...fields } = info;
    let line = `${String(time)} ${String(level).toUpperCase().padEnd(7)} [${String(module)}] ${String(message)}`;
    let stacks = '';
    for (const [key, value] of Object.entries(fields)) {
      if (isSerializedError(value)) {
        line += ` ${key}=${JSON.stringify(value.message)}`;
        if (value.stack) stacks += `\n${value.stack}`;
      } else line += ` ${key}=${typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)}`;
    }
    return line + stacks;
  });
}

/**
 * Sets the output format, destination and/or levels. Call once at start-up (services read `--log-level`
 * and `--log-format`); later level changes go through `setLogLevels`.
 */
export function configureLogging(options: LoggingOptions): void {
  if (options.levels !== undefined) setLogLevels(options.levels);
  if (options.format !== undefined || options.destination !== undefined) {
    root?.close();
    root = createRoot(options);
  }
}

/** Applies a level spec at runtime. A bad spec throws a `bad_request` AppError and changes nothing. */
export function setLogLevels(spec: string | LogLevelSpec): void {
  state.spec = typeof spec === 'string' ? parseLogSpec(spec) : spec;
  state.generation++;
}

/** The current levels in spec format, as `GET /loglevels` returns them. */
export function currentLogSpec(): string {
  return formatLogSpec(state.spec);
}

export function levelOf(module: string): LogLevel {
  return state.spec.modules.get(module) ?? state.spec.defaultLevel;
}

class ModuleLogger implements Logger {
  private threshold = 0;
  private seenGeneration = -1;

  constructor(readonly module: string) {}

  isEnabled(level: LogLevel): boolean {
    if (this.seenGeneration !== state.generation) {
      this.threshold = SEVERITY[levelOf(this.module)];
      this.seenGeneration = state.generation;
    }
    return SEVERITY[level] <= this.threshold;
  }

  error(message: string, fields?: LogFields | (() => LogFields)): void {
    if (this.isEnabled('error')) this.emit('error', message, fields);
  }

  warn(message: string, fields?: LogFields | (() => LogFields)): void {
    if (this.isEnabled('warning')) this.emit('warning', message, fields);
  }

  info(message: string, fields?: LogFields | (() => LogFields)): void {
    if (this.isEnabled('info')) this.emit('info', message, fields);
  }

  debug(message: string, fields?: LogFields | (() => LogFields)): void {
    if (this.isEnabled('debug')) this.emit('debug', message, fields);
  }

  private emit(level: LogLevel, message: string, fields: LogFields | (() => LogFields) | undefined): void {
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level, module: this.module, message };
    const extra = typeof fields === 'function' ? fields() : fields;
    if (extra) {
      for (const [key, value] of Object.entries(extra)) {
        // Reserved keys are kept but renamed rather than silently overwriting the entry's own.
        entry[key in entry ? `field.${key}` : key] = value instanceof Error ? serializeError(value) : value;
      }
    }
    rootLogger().log(entry as winston.LogEntry);
  }
}

interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: unknown;
}

function serializeError(error: Error): SerializedError {
  const serialized: SerializedError = { name: error.name, message: error.message };
  if (error.stack) serialized.stack = error.stack;
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) serialized.code = code;
  return serialized;
}

function isSerializedError(value: unknown): value is SerializedError {
  return (
    typeof value === 'object' &&
    value !== null &&
    'name' in value &&
    'message' in value &&
    typeof (value as SerializedError).message === 'string'
  );
}

const loggers = new Map<string, Logger>();

/** The logger of a module (`getLogger('anchor-writer')`); its level follows the current spec. */
export function getLogger(module: string): Logger {
  let logger = loggers.get(module);
  if (!logger) {
    logger = new ModuleLogger(module);
    loggers.set(module, logger);
  }
  return logger;
}

export { LOG_LEVELS };
