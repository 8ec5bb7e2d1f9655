import type { OptionDef } from './options.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any option value type is allowed in a spec
export type OptionMap = Record<string, OptionDef<any>>;

/** Options grouped under a name: `config.anchoring.batchWriterTimeout`. */
export type SectionMap = Record<string, OptionMap>;

/** What help, docs and flag reading need of any spec, whatever its option types. */
export interface ConfigShape {
  /** Binary name shown in help and error lines (`anchor-node`). */
  readonly program: string;
  readonly description?: string;
  /** When set, `--version` prints it. */
  readonly version?: string;
  /**
   * When set, every option's first env name is `<envPrefix>_<FLAG_IN_UPPER_SNAKE>` (`--batch-writer-timeout`
   * with `ANCHOR`: `ANCHOR_BATCH_WRITER_TIMEOUT`); the names an option declares follow it as aliases.
   */
  readonly envPrefix?: string;
  readonly options?: OptionMap;
  readonly sections?: SectionMap;
}

/**
 * A service binary's declared options, built once with `defineConfig`: top-level `options`, and/or
 * `sections` that each feature reads as a typed object of its own (`config.anchoring`, `config.delivery`).
 * Flags and env names are flat whatever the grouping: a section is a place in the parsed value, not a
 * part of any name.
 */
export interface ConfigSpec<O extends OptionMap = OptionMap, S extends SectionMap = SectionMap> extends ConfigShape {
  readonly options?: O;
  readonly sections?: S;
  /**
   * Rules between options, checked once every option has parsed: each returns a one-line problem (naming
   * the flags involved) or undefined. A broken rule is a bad configuration like a bad value: exit 2.
   */
  readonly checks?: ReadonlyArray<ConfigCheck<O, S>>;
}

/** A rule between options: a one-line problem naming the flags involved, or undefined. */
export type ConfigCheck<O extends OptionMap, S extends SectionMap = SectionMap> = (
  config: SettingsOf<O, S>,
) => string | undefined;

/** One strongly typed, read-only property per option of a map. */
export type ValuesOf<O extends OptionMap> = { readonly [K in keyof O]: O[K] extends OptionDef<infer T> ? T : never };

/** The top-level options' values, and one read-only object of values per section. */
export type SettingsOf<O extends OptionMap, S extends SectionMap> = ValuesOf<O> & {
  readonly [K in keyof S]: ValuesOf<S[K]>;
};

/** The parsed configuration a spec declares: one strongly typed, read-only property per option, nested by section. */
export type ConfigOf<X> = X extends ConfigSpec<infer O, infer S> ? SettingsOf<O, S> : never;

/** The grouping a spec leaves out: no options, or no sections. */
export type NoOptions = Record<never, never>;

/** What `defineConfig` returns: both groupings present (empty when not declared), env names complete. */
export type DefinedConfig<O extends OptionMap, S extends SectionMap> = ConfigSpec<O, S> & {
  readonly options: O;
  readonly sections: S;
};

/** An option with where its value goes: `section` undefined for a top-level option. */
export interface OptionEntry {
  readonly section: string | undefined;
  readonly key: string;
  readonly def: OptionDef<unknown>;
}

/** Every option of a spec in declaration order: top-level options first, then each section's. */
export function optionEntries(spec: ConfigShape): OptionEntry[] {
  const entries: OptionEntry[] = Object.entries(spec.options ?? {}).map(([key, def]) => ({
    section: undefined,
    key,
    def,
  }));
  for (const [section, options] of Object.entries(spec.sections ?? {})) {
    for (const [key, def] of Object.entries(options)) entries.push({ section, key, def });
  }
  return entries;
}
