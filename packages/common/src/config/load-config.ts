import { readFileSync } from 'node:fs';
import { ConfigError, HelpRequested, InvalidValue } from './errors.js';
import { renderHelp } from './help.js';
import type { OptionDef } from './options.js';
import {
  optionEntries,
  type ConfigShape,
  type ConfigSpec,
  type DefinedConfig,
  type NoOptions,
  type OptionMap,
  type SectionMap,
  type SettingsOf,
} from './config-spec.js';

/** `<NAME>_FILE` gives the value of env `<NAME>` from a file. */
export const FILE_SUFFIX = '_FILE';

/** The env name an option gets from its flag under a prefix: `ANCHOR` + `batch-writer-timeout` is `ANCHOR_BATCH_WRITER_TIMEOUT`. */
export function envNameFor(prefix: string, flag: string): string {
  return `${prefix}_${flag.toUpperCase().replace(/-/g, '_')}`;
}

export interface ConfigSources {
  /** Arguments after the script name; defaults to `process.argv.slice(2)`. */
  argv?: readonly string[];
  /** Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

const FLAG_NAME = /^[a-z0-9][a-z0-9-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Checks a declaration once at start-up and applies the env rule (`envPrefix`): flag names are lower-case
 * kebab (Orb's capitalised `--apclient-cache-Expiration` is not repeated), no flag, short alias
 * or env var is claimed twice, and no section shares a name with a top-level option. Mistakes here are
 * programming errors, so they throw plain errors rather than `ConfigError`.
 */
export function defineConfig<const O extends OptionMap = NoOptions, const S extends SectionMap = NoOptions>(
  spec: ConfigSpec<O, S>,
): DefinedConfig<O, S> {
  const prefix = spec.envPrefix;
  if (prefix !== undefined && !/^[A-Z][A-Z0-9_]*$/.test(prefix))
    throw new Error(`envPrefix ${JSON.stringify(prefix)} must be upper-case letters, digits and underscores`);
  const withRule = <M extends OptionMap>(options: M): M =>
    prefix === undefined
      ? options
      : (Object.fromEntries(
          Object.entries(options).map(([key, def]) => {
            const derived = envNameFor(prefix, def.flag);
            return [key, { ...def, env: [derived, ...def.env.filter((name: string) => name !== derived)] }];
          }),
        ) as unknown as M);
  const defined: DefinedConfig<O, S> = {
    ...spec,
    options: withRule(spec.options ?? ({} as O)),
    sections: Object.fromEntries(
      Object.entries(spec.sections ?? {}).map(([name, options]) => [name, withRule(options)]),
    ) as S,
  };

  const flags = new Set<string>(['help', ...(spec.version === undefined ? [] : ['version'])]);
  const shorts = new Set<string>(['h']);
  const envs = new Set<string>();
  for (const name of Object.keys(spec.sections ?? {})) {
    if (Object.hasOwn(spec.options ?? {}, name))
      throw new Error(`section ${name}: a top-level option has the same name`);
  }
  for (const { section, key, def } of optionEntries(defined)) {
    const where = `option ${section === undefined ? key : `${section}.${key}`} (--${def.flag})`;
    if (!FLAG_NAME.test(def.flag)) throw new Error(`${where}: flag must be lower-case letters, digits and dashes`);
    if (flags.has(def.flag)) throw new Error(`${where}: flag --${def.flag} is reserved or declared twice`);
    flags.add(def.flag);
    if (def.short !== undefined) {
      if (!/^[A-Za-z0-9]$/.test(def.short)) throw new Error(`${where}: short alias must be one letter or digit`);
      if (shorts.has(def.short)) throw new Error(`${where}: short alias -${def.short} is reserved or declared twice`);
      shorts.add(def.short);
    }
    for (const name of def.env) {
      if (!ENV_NAME.test(name))
        throw new Error(`${where}: ${JSON.stringify(name)} is not an environment variable name`);
      if (envs.has(name)) throw new Error(`${where}: environment variable ${name} is declared twice`);
      envs.add(name);
    }
    if (def.required && def.defaultValue !== undefined)
      throw new Error(`${where}: a required option cannot have a default`);
  }
  for (const name of envs) {
    if (envs.has(`${name}${FILE_SUFFIX}`))
      throw new Error(
        `environment variables ${name} and ${name}${FILE_SUFFIX} are both declared: the second reads as the first's file form`,
      );
  }
  return defined;
}

/** `option --batch-timeout (env ANCHOR_BATCH_TIMEOUT or BATCH_WRITER_TIMEOUT)`: how every error line names an option. */
export function describeOption(def: OptionDef<unknown>): string {
  return def.env.length === 0 ? `option --${def.flag}` : `option --${def.flag} (env ${def.env.join(' or ')})`;
}

/**
 * Reads the options from flags and environment: a flag beats the env vars, the first set env var beats
 * later ones, and an env var set to the empty string counts as unset (compose files often leave `X=`).
 * Throws `HelpRequested` for `--help`/`-h` (and `--version`), and `ConfigError` with one line naming the
 * option for an unknown flag, a missing value, a bad value or a missing required option.
 */
export function loadConfig<O extends OptionMap, S extends SectionMap>(
  spec: ConfigSpec<O, S>,
  sources: ConfigSources = {},
): SettingsOf<O, S> {
  const argv = sources.argv ?? process.argv.slice(2);
  const env = sources.env ?? process.env;
  const occurrences = collectFlags(spec, argv);
  const config: Record<string, unknown> = {};
  const sections: Record<string, Record<string, unknown>> = {};
  for (const { section, key, def } of optionEntries(spec)) {
    const value = resolveOption(def, occurrences.get(def.flag), env);
    if (section === undefined) config[key] = value;
    else (sections[section] ??= {})[key] = value;
  }
  for (const [name, values] of Object.entries(sections)) config[name] = Object.freeze(values);
  const values = Object.freeze(config) as SettingsOf<O, S>;
  for (const check of spec.checks ?? []) {
    const problem = check(values);
    if (problem !== undefined) throw new ConfigError(problem);
  }
  return values;
}

interface Occurrence {
  raw: string;
  /** How the user spelled the flag (`--batch-timeout` or `-b`), for error lines. */
  via: string;
}

function collectFlags(spec: ConfigShape, argv: readonly string[]): Map<string, Occurrence[]> {
  const end = argv.indexOf('--');
  const flagPart = end < 0 ? argv : argv.slice(0, end);
  if (flagPart.some((arg) => arg === '--help' || arg === '-h')) throw new HelpRequested(renderHelp(spec));
  if (spec.version !== undefined && flagPart.includes('--version'))
    throw new HelpRequested(`${spec.program} ${spec.version}\n`);
  if (end >= 0 && end + 1 < argv.length)
    throw new ConfigError(`unexpected argument ${JSON.stringify(argv[end + 1])}; this program takes only options`);

  // Occurrences are keyed by flag name, which is unique across sections.
  const byLong = new Map<string, OptionDef<unknown>>();
  const byShort = new Map<string, OptionDef<unknown>>();
  for (const { def } of optionEntries(spec)) {
    byLong.set(def.flag, def);
    if (def.short !== undefined) byShort.set(def.short, def);
  }

  const found = new Map<string, Occurrence[]>();
  for (let i = 0; i < flagPart.length; i++) {
    const arg = flagPart[i] as string;
    let def: OptionDef<unknown> | undefined;
    let inline: string | undefined;
    let via: string;
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const equals = body.indexOf('=');
      const name = equals < 0 ? body : body.slice(0, equals);
      inline = equals < 0 ? undefined : body.slice(equals + 1);
      via = `--${name}`;
      def = byLong.get(name);
    } else if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg.charAt(1);
      const rest = arg.slice(2);
      inline = rest === '' ? undefined : rest.startsWith('=') ? rest.slice(1) : rest;
      via = `-${letter}`;
      def = byShort.get(letter);
    } else {
      throw new ConfigError(`unexpected argument ${JSON.stringify(arg)}; this program takes only options`);
    }
    if (def === undefined) throw new ConfigError(`unknown option ${via}; run with --help to list the options`);
    let raw: string;
    if (def.isSwitch) raw = inline ?? 'true';
    else if (inline !== undefined) raw = inline;
    else {
      const next = flagPart[i + 1];
      if (next === undefined) throw new ConfigError(`${describeOption(def)}: ${via} needs a value`);
      if (isOptionHere(next, byShort))
        throw new ConfigError(
          `${describeOption(def)}: ${via} needs a value (found the option ${next} instead; write ${via}=<value> for a value that starts with a dash)`,
        );
      raw = next;
      i++;
    }
    const list = found.get(def.flag) ?? [];
    list.push({ raw, via });
    found.set(def.flag, list);
  }
  return found;
}

/**
 * Whether the argument after a valued flag is the next option (a forgotten value) rather than the value.
 * A value may start with a dash (`-5`, or a random id such as `-Xq3…`): only a `--` argument, or a dash
 * and a letter that is one of this program's short options, reads as an option.
 */
function isOptionHere(arg: string, byShort: ReadonlyMap<string, OptionDef<unknown>>): boolean {
  if (arg.startsWith('--')) return true;
  return arg.length > 1 && arg.startsWith('-') && byShort.has(arg.charAt(1));
}

function resolveOption(
  def: OptionDef<unknown>,
  flagged: Occurrence[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
): unknown {
  let raws: string[];
  let source: string;
  const lastFlag = flagged?.[flagged.length - 1];
  if (flagged && lastFlag) {
    raws = def.accumulates ? flagged.map((o) => o.raw) : [lastFlag.raw];
    source = `flag ${lastFlag.via}`;
  } else {
    const found = envValue(def, env);
    if (found === undefined) {
      if (def.required) throw new ConfigError(`${describeOption(def)}: required but not set`);
      return cloneDefault(def.defaultValue);
    }
    raws = [found.raw];
    source = found.source;
  }
  try {
    return def.parse(raws);
  } catch (error) {
    throw new ConfigError(badValueLine(def, raws, source, error));
  }
}

/**
 * The first env name set, in declaration order; each name may instead be given as `<NAME>_FILE`, the path of a
 * file holding the value (Docker and Kubernetes secrets are mounted as files), read with its final newline
 * dropped. A set variable beats its `_FILE` form.
 */
function envValue(
  def: OptionDef<unknown>,
  env: Readonly<Record<string, string | undefined>>,
): { raw: string; source: string } | undefined {
  for (const name of def.env) {
    if ((env[name] ?? '').trim() !== '') return { raw: env[name] as string, source: `env ${name}` };
    const file = env[`${name}${FILE_SUFFIX}`] ?? '';
    if (file.trim() === '') continue;
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new ConfigError(`${describeOption(def)}: cannot read ${name}${FILE_SUFFIX} ${quote(file)}: ${reason}`);
    }
    return { raw, source: `file ${file} (${name}${FILE_SUFFIX})` };
  }
  return undefined;
}

function badValueLine(def: OptionDef<unknown>, raws: readonly string[], source: string, error: unknown): string {
  const invalid = error instanceof InvalidValue ? error : undefined;
  const reason = invalid?.reason ?? (def.secret ? 'rejected' : error instanceof Error ? error.message : String(error));
  const shown = def.secret ? '' : ` ${quote(invalid?.offending ?? raws[raws.length - 1] ?? '')}`;
  return `${describeOption(def)}: invalid value${shown} from ${source}: ${oneLine(reason)}`;
}

function quote(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}...` : value);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ');
}

function cloneDefault(value: unknown): unknown {
  if (Array.isArray(value)) return [...value];
  if (value !== null && typeof value === 'object') return { ...value };
  return value;
}
