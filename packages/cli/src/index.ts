/** The `anchor` command-line client: its command table and entry point, for tests and tools. */
export { runCli, COMMANDS, GROUPS } from './cli.js';
export { renderCliDocs } from './docs.js';
export type { CommandSpec, OptionSpec } from './command.js';
export { Output, type CliIo } from './output.js';
