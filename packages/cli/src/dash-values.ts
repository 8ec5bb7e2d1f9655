import type { CommandSpec, OptionSpec } from './command.js';

/**
 * Rewrites `--keystore -Xq3…` as `--keystore=-Xq3…`. yargs reads an argument after a string option that starts
 * with a dash as a group of short flags and leaves the option empty; ids and tokens in base64url start with
 * `-` one time in 64 (the kms issued such ids before it stopped). An argument that is `--…`, or a dash and
 * only letters that are short aliases (`-n`, `-nt`), stays an option, so a forgotten value is still reported.
 */
export function joinDashValues(
  argv: readonly string[],
  commands: readonly CommandSpec[],
  globals: Readonly<Record<string, OptionSpec>>,
): string[] {
  const stringOptions = new Set<string>();
  const aliases = new Set<string>();
  for (const options of [globals, ...commands.map((command) => command.options ?? {})])
    for (const [name, option] of Object.entries(options)) {
      if (option.type === 'string') stringOptions.add(name);
      if (option.alias !== undefined) aliases.add(option.alias);
    }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (
      arg.startsWith('--') &&
      stringOptions.has(arg.slice(2)) &&
      next !== undefined &&
      next.length > 1 &&
      next.startsWith('-') &&
      !next.startsWith('--') &&
      ![...next.slice(1)].every((letter) => aliases.has(letter))
    ) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}
