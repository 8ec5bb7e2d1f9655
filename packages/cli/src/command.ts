import type { Output, CliIo } from './output.js';

/** One option of a command, as yargs takes it and as docs/cli.md lists it. */
export interface OptionSpec {
  type: 'string' | 'boolean' | 'number' | 'array';
  describe: string;
  default?: string | number | boolean;
  choices?: readonly string[];
  demandOption?: boolean;
  alias?: string;
}

export interface PositionalSpec {
  describe: string;
  /** Several values (`<services..>`). */
  variadic?: boolean;
  optional?: boolean;
}

/** Values every command sees: the global options, after flags, ANCHOR_CLI_* env and the config file. */
export interface GlobalArgs {
  nodeUrl?: string;
  logUrl?: string;
  token?: string;
  json: boolean;
}

export interface CommandContext<A = Record<string, unknown>> {
  args: A & GlobalArgs;
  out: Output;
  io: CliIo;
}

/**
 * A command of the `anchor` binary: one table entry drives the parser (yargs), `--help`, shell completion
 * and docs/cli.md, so they cannot disagree.
 */
export interface CommandSpec {
  /** Words of the command, e.g. `did create`. */
  name: string;
  describe: string;
  positionals?: Record<string, PositionalSpec>;
  options?: Record<string, OptionSpec>;
  examples: ReadonlyArray<readonly [command: string, what: string]>;
  /** Resolves with the exit code when it is not 0 (e.g. `federation status` with an unhealthy node). */
  run(context: CommandContext): Promise<void | number>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  'node-url': { type: 'string', alias: 'n', describe: 'Base URL of the node (env ANCHOR_CLI_NODE_URL)' },
  'log-url': {
    type: 'string',
    describe: 'Log alias URL of the transparency log, e.g. http://127.0.0.1:8070/main (env ANCHOR_CLI_LOG_URL)',
  },
  'kms-url': { type: 'string', describe: 'Base URL of the kms (env ANCHOR_CLI_KMS_URL)' },
  'vcs-url': { type: 'string', describe: 'Base URL of the credential service (env ANCHOR_CLI_VCS_URL)' },
  token: { type: 'string', alias: 't', describe: 'Bearer token for administrative endpoints (env ANCHOR_CLI_TOKEN)' },
  json: { type: 'boolean', default: false, describe: 'Print the result as JSON (for scripts)' },
  config: {
    type: 'string',
    describe:
      'JSON file with defaults for these options, e.g. {"nodeUrl": "...", "token": "..."} (default ~/.config/anchor/cli.json when present)',
  },
};

/** The value of a string option that the command cannot do without. */
export function required(value: unknown, option: string): string {
  if (typeof value !== 'string' || value === '') throw new MissingOption(option);
  return value;
}

export class MissingOption extends Error {
  constructor(readonly option: string) {
    super(
      `--${option} is required (or set it in ANCHOR_CLI_${option.toUpperCase().replaceAll('-', '_')} or the config file)`,
    );
    this.name = 'MissingOption';
  }
}
