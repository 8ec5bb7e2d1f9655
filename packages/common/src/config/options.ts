import { formatDuration } from './duration.js';
import { InvalidValue } from './errors.js';
import {
  checkBounds,
  formatHostPort,
  parseBool,
  parseDurationValue,
  parseHostPort,
  parseInteger,
  parseKeyValue,
  parseNumber,
  parseUrl,
  splitList,
  type HostPort,
} from './values.js';

/**
 * One declared option. Built by the `opt.*` builders below; `T` is the parsed value's type, including
 * `undefined` when the option is neither required nor defaulted, so `ConfigOf` gives a precise type.
 */
export interface OptionDef<T> {
  /** Shown in help and docs, e.g. `duration`, `host:port`, `mem|lmdb|mongodb`. */
  readonly type: string;
  /** Long flag without dashes (`batch-timeout`). */
  readonly flag: string;
  /** One-letter alias without the dash. */
  readonly short: string | undefined;
  /** Environment variables, canonical first; the first one that is set (non-empty) is used. */
  readonly env: readonly string[];
  readonly help: string;
  readonly required: boolean;
  /** Never echoed: not in error messages, help defaults, or `describeConfig`. */
  readonly secret: boolean;
  /** Lists and maps collect every occurrence of their flag; other options keep the last occurrence. */
  readonly accumulates: boolean;
  /** Booleans: `--flag` alone means true; a value must be attached (`--flag=false`). */
  readonly isSwitch: boolean;
  /** The value when no flag or env var sets the option. */
  readonly defaultValue: T;
  /** Parses every occurrence from the winning source (all flag occurrences, or the one env value). */
  parse(raws: readonly string[]): T;
  /** Renders a value the way a user would type it (for help defaults and docs). */
  format(value: NonNullable<T>): string;
}

export interface OptionInput<T> {
  flag: string;
  short?: string;
  env?: string | readonly string[];
  help: string;
  required?: boolean;
  secret?: boolean;
  /** Extra check on the parsed value: return a reason to reject it (without repeating the value). */
  validate?: (value: T) => string | undefined;
}

/** Required or defaulted options always have a value; the others may be undefined. */
export type Presence<O, T> = O extends { required: true } ? T : O extends { default: unknown } ? T : T | undefined;

interface Kind<T> {
  type: string;
  parse(raws: readonly string[]): T;
  format(value: T): string;
  accumulates?: boolean;
  isSwitch?: boolean;
}

function define<T>(input: OptionInput<T>, kind: Kind<T>, defaultValue: T | undefined): OptionDef<T | undefined> {
  const validate = input.validate;
  const parse = (raws: readonly string[]): T => {
    const value = kind.parse(raws);
    const problem = validate?.(value);
    if (problem !== undefined) throw new InvalidValue(problem);
    return value;
  };
  if (defaultValue !== undefined) {
    const problem = validate?.(defaultValue);
    if (problem !== undefined) throw new Error(`option --${input.flag}: default is invalid: ${problem}`);
  }
  return {
    type: kind.type,
    flag: input.flag,
    short: input.short,
    env: input.env === undefined ? [] : typeof input.env === 'string' ? [input.env] : [...input.env],
    help: input.help,
    required: input.required ?? false,
    secret: input.secret ?? false,
    accumulates: kind.accumulates ?? false,
    isSwitch: kind.isSwitch ?? false,
    defaultValue,
    parse,
    format: kind.format as (value: NonNullable<T | undefined>) => string,
  };
}

const last = (raws: readonly string[]): string => raws[raws.length - 1] ?? '';

function scalar<T>(type: string, parseOne: (raw: string) => T, format: (value: T) => string = String): Kind<T> {
  return { type, parse: (raws) => parseOne(last(raws)), format };
}

/** Resolves a declared default given in either the value's own type or as text the parser reads. */
function defaultFrom<T>(flag: string, value: T | string | undefined, parseText: (raw: string) => T): T | undefined {
  if (typeof value !== 'string') return value;
  try {
    return parseText(value);
  } catch (error) {
    throw new Error(`option --${flag}: default ${JSON.stringify(value)} is invalid: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function listItems(raws: readonly string[], separator: string | null): string[] {
  return raws.flatMap((raw) => splitList(raw, separator));
}

function matchChoice<C extends string>(choices: readonly C[], raw: string): C {
  const wanted = raw.trim().toLowerCase();
  const choice = choices.find((c) => c.toLowerCase() === wanted);
  if (choice === undefined) throw new InvalidValue(`must be one of ${choices.join(', ')}`, raw);
  return choice;
}

interface Bounds {
  min?: number;
  max?: number;
}

type Cast<O, T> = OptionDef<Presence<O, T>>;

/**
 * Option builders. Every option names its long flag, optional short alias, env vars (canonical first),
 * help text, and optionally `default`, `required`, `secret` and `validate`:
 *
 *   batchTimeout: opt.duration({ flag: 'batch-timeout', env: ['ANCHOR_BATCH_TIMEOUT', 'BATCH_WRITER_TIMEOUT'],
 *                                default: '1m', help: 'longest wait before a batch is cut' }),
 */
export const opt = {
  string<const O extends OptionInput<string> & { default?: string }>(input: O): Cast<O, string> {
    return define(
      input,
      scalar('string', (raw) => raw),
      input.default,
    ) as Cast<O, string>;
  },

  int<const O extends OptionInput<number> & Bounds & { default?: number }>(input: O): Cast<O, number> {
    const kind = scalar('int', (raw) => {
      const value = parseInteger(raw);
      checkBounds(value, input.min, input.max, String);
      return value;
    });
    return define(input, kind, input.default) as Cast<O, number>;
  },

  number<const O extends OptionInput<number> & Bounds & { default?: number }>(input: O): Cast<O, number> {
    const kind = scalar('number', (raw) => {
      const value = parseNumber(raw);
      checkBounds(value, input.min, input.max, String);
      return value;
    });
    return define(input, kind, input.default) as Cast<O, number>;
  },

  /** A switch: `--flag`, `--flag=false`, env `true`/`false` (also 1/0, yes/no, on/off). Defaults to false. */
  bool<const O extends OptionInput<boolean> & { default?: boolean }>(input: O): OptionDef<boolean> {
    const kind: Kind<boolean> = { ...scalar('bool', parseBool), isSwitch: true };
    return define(input, kind, input.default ?? false) as OptionDef<boolean>;
  },

  /** Milliseconds, written in Go syntax (`500ms`, `10s`, `1h30m`) or as integer milliseconds. */
  duration<
    const O extends OptionInput<number> & { default?: number | string; min?: number | string; max?: number | string },
  >(input: O): Cast<O, number> {
    const min = defaultFrom(input.flag, input.min, parseDurationValue);
    const max = defaultFrom(input.flag, input.max, parseDurationValue);
    const kind = scalar(
      'duration',
      (raw) => {
        const value = parseDurationValue(raw);
        checkBounds(value, min, max, formatDuration);
        return value;
      },
      formatDuration,
    );
    return define(input, kind, defaultFrom(input.flag, input.default, parseDurationValue)) as Cast<O, number>;
  },

  /** One of a fixed set, matched case-insensitively and returned in its declared spelling. */
  enum<
    const C extends readonly [string, ...string[]],
    const O extends OptionInput<C[number]> & { default?: C[number] },
  >(choices: C, input: O): Cast<O, C[number]> {
    const kind = scalar(choices.join('|'), (raw) => matchChoice(choices, raw));
    return define(input, kind, input.default) as Cast<O, C[number]>;
  },

  /**
   * Strings from repeated flags and/or comma-separated values (flag or env). Defaults to `[]`.
   * `separator: null` keeps each occurrence whole (for items that may contain commas).
   */
  list<
    const O extends OptionInput<string[]> & {
      default?: readonly string[];
      separator?: string | null;
      validateItem?: (item: string) => string | undefined;
    },
  >(input: O): OptionDef<string[]> {
    const separator = input.separator === undefined ? ',' : input.separator;
    const kind: Kind<string[]> = {
      type: 'list',
      accumulates: true,
      parse: (raws) =>
        listItems(raws, separator).map((item) => {
          const problem = input.validateItem?.(item);
          if (problem !== undefined) throw new InvalidValue(problem, item);
          return item;
        }),
      format: (value) => value.join(separator ?? ' '),
    };
    return define(input, kind, [...(input.default ?? [])]) as OptionDef<string[]>;
  },

  /** A list whose items come from a fixed set (matched case-insensitively). Defaults to `[]`. */
  enumList<
    const C extends readonly [string, ...string[]],
    const O extends OptionInput<C[number][]> & { default?: readonly C[number][] },
  >(choices: C, input: O): OptionDef<C[number][]> {
    const kind: Kind<C[number][]> = {
      type: `list of ${choices.join('|')}`,
      accumulates: true,
      parse: (raws) => listItems(raws, ',').map((item) => matchChoice(choices, item)),
      format: (value) => value.join(','),
    };
    return define(input, kind, [...(input.default ?? [])]) as OptionDef<C[number][]>;
  },

  /** An absolute URL (kept as written), optionally limited to some schemes: `protocols: ['http', 'https']`. */
  url<const O extends OptionInput<string> & { default?: string; protocols?: readonly string[] }>(
    input: O,
  ): Cast<O, string> {
    const kind = scalar('url', (raw) => parseUrl(raw, input.protocols));
    return define(
      input,
      kind,
      defaultFrom(input.flag, input.default, (raw) => parseUrl(raw, input.protocols)),
    ) as Cast<O, string>;
  },

  /** A listen address `host:port` (`:port` means all interfaces). */
  hostPort<const O extends OptionInput<HostPort> & { default?: string | HostPort }>(input: O): Cast<O, HostPort> {
    const kind = scalar('host:port', parseHostPort, formatHostPort);
    return define(input, kind, defaultFrom(input.flag, input.default, parseHostPort)) as Cast<O, HostPort>;
  },

  /**
   * `name=value` pairs from repeated flags and/or comma-separated values, e.g. Orb's
   * `ORB_AUTH_TOKENS=admin=ADMIN_TOKEN,read=READ_TOKEN`. A name given twice is an error. Defaults to `{}`.
   */
  map<const O extends OptionInput<Record<string, string>> & { default?: Readonly<Record<string, string>> }>(
    input: O,
  ): OptionDef<Record<string, string>> {
    const kind: Kind<Record<string, string>> = {
      type: 'name=value list',
      accumulates: true,
      parse: (raws) => {
        const entries: Record<string, string> = {};
        for (const item of listItems(raws, ',')) {
          const [name, value] = parseKeyValue(item);
          if (Object.hasOwn(entries, name)) throw new InvalidValue(`name ${JSON.stringify(name)} is given twice`);
          entries[name] = value;
        }
        return entries;
      },
      format: (value) =>
        Object.entries(value)
          .map(([name, v]) => `${name}=${v}`)
          .join(','),
    };
    return define(input, kind, { ...(input.default ?? {}) }) as OptionDef<Record<string, string>>;
  },

  /**
   * Anything else: `parse` turns the text into a value or throws with a reason (for example the log
   * module's `parseLogSpec`). `default` is text that `parse` reads.
   */
  custom<T, const O extends OptionInput<T> & { type: string; format?: (value: T) => string; default?: string }>(
    input: O & { parse: (raw: string) => T },
  ): Cast<O, T> {
    const parseOne = (raw: string): T => {
      try {
        return input.parse(raw);
      } catch (error) {
        if (error instanceof InvalidValue) throw error;
        throw new InvalidValue(error instanceof Error ? error.message : String(error));
      }
    };
    const kind = scalar(input.type, parseOne, input.format ?? String);
    return define(input, kind, defaultFrom(input.flag, input.default, parseOne)) as Cast<O, T>;
  },
};

export type { HostPort };
