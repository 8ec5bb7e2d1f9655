/**
 * One declarative flag/env reader for every service binary (see `opt`, `defineConfig`, `loadConfig`),
 * its help and Markdown renderings, and `runMain`, the one place a binary maps outcomes to exit codes.
 */
export { opt, type OptionDef, type OptionInput, type Presence, type HostPort } from './options.js';
export { defineConfig, loadConfig, describeOption, envNameFor, type ConfigSources } from './load-config.js';
export {
  optionEntries,
  type ConfigSpec,
  type ConfigShape,
  type ConfigOf,
  type ValuesOf,
  type SettingsOf,
  type OptionMap,
  type SectionMap,
  type DefinedConfig,
  type NoOptions,
  type OptionEntry,
} from './config-spec.js';
export { renderHelp, renderOptionsMarkdown, undocumentedOptions, describeConfig } from './help.js';
export { ConfigError, HelpRequested, InvalidValue } from './errors.js';
export { parseDuration, formatDuration, DURATION_SYNTAX } from './duration.js';
export { parseHostPort, formatHostPort, parseBool } from './values.js';
export { runMain, type Stoppable, type RunMainOptions, type MainIo } from './run-main.js';
