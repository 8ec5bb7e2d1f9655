import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_VERSION } from '@anchor/common/version';
import yargs, { type Argv } from 'yargs';
import { GLOBAL_OPTIONS, MissingOption, type CommandContext, type CommandSpec } from './command.js';
import { ADMIN_COMMANDS } from './commands/admin.js';
import { DID_COMMANDS } from './commands/did.js';
import { EXPORT_COMMANDS } from './commands/export.js';
import { FEDERATION_COMMANDS } from './commands/federation.js';
import { KMS_COMMANDS } from './commands/kms.js';
import { VC_COMMANDS } from './commands/vc.js';
import { VCT_COMMANDS } from './commands/vct.js';
import { joinDashValues } from './dash-values.js';
import { renderCliDocs } from './docs.js';
import { CliError, describeFailure } from './errors.js';
import { Output, processIo, type CliIo } from './output.js';
import { checkUrls } from './urls.js';

/** Every command of `anchor`, in the order help and docs list them. */
export const COMMANDS: readonly CommandSpec[] = [
  ...DID_COMMANDS,
  ...ADMIN_COMMANDS,
  ...VCT_COMMANDS,
  ...KMS_COMMANDS,
  ...VC_COMMANDS,
  ...FEDERATION_COMMANDS,
  ...EXPORT_COMMANDS,
];

export const GROUPS: Readonly<Record<string, string>> = {
  did: 'Create, update, recover, deactivate and resolve DIDs',
  witness: 'Witness invitations',
  acceptlist: 'Who may follow this node or invite it to witness',
  allowedorigins: 'Anchor origins this node accepts',
  policy: 'The witness policy',
  log: 'The transparency log the node uses',
  logmonitor: 'The transparency logs the node monitors (consistency, signatures, inclusion)',
  vct: 'The transparency log: add, tree heads, proofs',
  kms: 'The key management service: keystores, keys, signatures',
  'kms keystore': 'Keystores',
  'kms key': 'Keys of a keystore',
  vc: 'Credentials through the credential service: issue, verify, revoke',
  federation: 'The federation as a whole',
};

const DEFAULT_CONFIG = join(homedir(), '.config', 'anchor', 'cli.json');

function positionalSyntax(spec: CommandSpec): string {
  return Object.entries(spec.positionals ?? {})
    .map(([name, p]) => (p.optional ? `[${name}${p.variadic ? '..' : ''}]` : `<${name}${p.variadic ? '..' : ''}>`))
    .join(' ');
}

function readConfig(path: string): Record<string, unknown> {
  if (path === DEFAULT_CONFIG && !existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`cannot read the config file ${path}: ${(error as Error).message}`, 2);
  }
}

/** The command yargs chose and its arguments: run only once the whole command line has been validated. */
interface Chosen {
  spec: CommandSpec;
  args: Record<string, unknown>;
}

/** Whether the result and errors are JSON: `--json` on the command line or ANCHOR_CLI_JSON (known before parsing). */
function wantsJson(argv: readonly string[], env: CliIo['env']): boolean {
  const flag = argv.findLast((arg) => arg === '--json' || arg.startsWith('--json=') || arg === '--no-json');
  if (flag !== undefined) return flag === '--json' || flag === '--json=true';
  return env['ANCHOR_CLI_JSON'] === 'true' || env['ANCHOR_CLI_JSON'] === '1';
}

/** Runs `anchor` with `argv`; resolves with the exit code (0 success, 1 failure, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const json = wantsJson(argv, io.env);
  const report = (message: string, code: 1 | 2): number => {
    // With --json a script reads errors the way it reads results: one JSON line (on stderr, like the text).
    io.stderr(json ? `${JSON.stringify({ error: { message, exitCode: code } })}\n` : `anchor: ${message}\n`);
    return code;
  };
  let chosen: Chosen | undefined;
  let usageError: string | undefined;
  const parser = yargs(joinDashValues(argv, COMMANDS, GLOBAL_OPTIONS))
    .scriptName('anchor')
    .version(PROJECT_VERSION)
    .env('ANCHOR_CLI')
    .options(GLOBAL_OPTIONS as Record<string, never>)
    .config('config', (path: string) => readConfig(path))
    .default('config', DEFAULT_CONFIG, '~/.config/anchor/cli.json')
    .strict()
    .demandCommand(1, 'give a command (anchor --help lists them)')
    .recommendCommands()
    .completion('completion', 'Print a bash/zsh completion script (eval "$(anchor completion)")')
    .wrap(Math.min(120, process.stdout.columns ?? 100))
    .fail((message: string | undefined, error: Error | undefined) => {
      if (error) throw error;
      usageError = message ?? 'invalid usage';
    })
    .exitProcess(false)
    .help();

  addCommands(parser, COMMANDS, [], (choice) => (chosen = choice));
  parser.command('docs', false, {}, (args) => {
    io.stdout(renderCliDocs(COMMANDS, GROUPS, GLOBAL_OPTIONS));
    void args;
  });

  try {
    // Parsing only chooses the command: nothing runs until every argument of the line has been validated, so a
    // usage error (a mistyped option, a missing value) changes nothing anywhere.
    await parser.parseAsync();
    if (usageError !== undefined)
      return report(`${usageError.split('\n')[0]} (anchor --help lists the commands and options)`, 2);
    if (chosen === undefined) return 0;
    const args = chosen.args;
    checkUrls(args);
    const output = new Output(io, args['json'] === true);
    const code = await chosen.spec.run({ args: args as CommandContext['args'], out: output, io });
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    if (error instanceof MissingOption || (error instanceof CliError && error.exitCode === 2))
      return report(error.message, 2);
    return report(describeFailure(error), error instanceof CliError ? error.exitCode : 1);
  }
}

/** Adds `specs` below the words `prefix`: one level of yargs commands per word (`kms keystore create`). */
function addCommands(
  parser: Argv,
  specs: readonly CommandSpec[],
  prefix: readonly string[],
  choose: (chosen: Chosen) => void,
): void {
  const groups = new Map<string, CommandSpec[]>();
  for (const spec of specs) {
    const words = spec.name.split(' ').slice(prefix.length);
    if (words.length === 1) addCommand(parser, spec, words[0]!, choose);
    else groups.set(words[0]!, [...(groups.get(words[0]!) ?? []), spec]);
  }
  for (const [word, members] of groups) {
    const path = [...prefix, word];
    parser.command(word, GROUPS[path.join(' ')] ?? `${path.join(' ')} commands`, (group: Argv) => {
      addCommands(group, members, path, choose);
      return group.demandCommand(1, `give a ${path.join(' ')} command (anchor ${path.join(' ')} --help lists them)`);
    });
  }
}

function addCommand(parser: Argv, spec: CommandSpec, word: string, choose: (chosen: Chosen) => void): void {
  const syntax = [word, positionalSyntax(spec)].filter(Boolean).join(' ');
  parser.command(
    syntax,
    spec.describe,
    (command: Argv) => {
      for (const [name, positional] of Object.entries(spec.positionals ?? {}))
        command.positional(name, {
          describe: positional.describe,
          type: 'string',
          ...(positional.variadic ? { array: true } : {}),
        });
      for (const [name, option] of Object.entries(spec.options ?? {})) command.option(name, option as never);
      for (const [example, what] of spec.examples) command.example(example, what);
      return command;
    },
    (args: Record<string, unknown>) => choose({ spec, args }),
  );
}
