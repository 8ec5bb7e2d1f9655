import type { CommandSpec, OptionSpec } from './command.js';

/**
 * docs/cli.md from the command table itself (`anchor docs`, `npm run docs -w @anchor/cli`); a test fails when
 * the committed file differs, so the manual cannot drift from the binary.
 */
export function renderCliDocs(
  commands: readonly CommandSpec[],
  groups: Readonly<Record<string, string>>,
  globals: Record<string, OptionSpec>,
): string {
  const lines = [
    '# `anchor` — the command-line client',
    '',
    '<!-- Generated from packages/cli/src/commands by `npm run docs -w @anchor/cli`; do not edit by hand. -->',
    '',
    "`anchor` drives a federation over its HTTP APIs: DIDs on a node, the node's administration, the",
    'transparency log, the federation as a whole. After `npm ci` and `npm run build` (or `npm start`, which',
    'builds it too) it runs from the repository root as `npx anchor ...`. Every command has `--help` and',
    '`--json` (the result as JSON on stdout; progress goes to stderr). Exit codes: 0 success, 1 failure (an',
    'error, a failed verification, an unhealthy node), 2 a usage mistake. Errors are one line on stderr; with',
    '`--json` that line is JSON too: `{"error":{"message":"...","exitCode":1}}`.',
    '',
    'The whole command line is checked before anything is done: a mistyped option, a missing value or a',
    'service URL without `http://` / `https://` is a usage error (exit 2) that reads, sends and writes',
    'nothing.',
    '',
    'Settings come from flags, then `ANCHOR_CLI_<OPTION>` environment variables (`ANCHOR_CLI_NODE_URL`,',
    '`ANCHOR_CLI_TOKEN`, ...), then a JSON config file (`--config`, default `~/.config/anchor/cli.json`',
    'when it exists).',
    '',
    'Shell completion: `eval "$(npx anchor completion)"` in bash or zsh.',
    '',
    '## Global options',
    '',
    ...optionTable(globals),
    '',
  ];
  const seen = new Set<string>();
  for (const spec of commands) {
    const head = spec.name.split(' ')[0]!;
    if (spec.name.includes(' ') && !seen.has(head)) {
      seen.add(head);
      lines.push(`## ${head}`, '', groups[head] ?? '', '');
    }
    const positionals = Object.entries(spec.positionals ?? {})
      .map(([name, p]) => (p.optional ? `[${name}${p.variadic ? '..' : ''}]` : `<${name}${p.variadic ? '..' : ''}>`))
      .join(' ');
    lines.push(`### \`anchor ${spec.name}${positionals ? ` ${positionals}` : ''}\``, '', spec.describe, '');
    for (const [name, p] of Object.entries(spec.positionals ?? {})) lines.push(`- \`${name}\`: ${p.describe}`);
    if (spec.positionals) lines.push('');
    if (spec.options && Object.keys(spec.options).length > 0) lines.push(...optionTable(spec.options), '');
    lines.push(
      'Examples:',
      '',
      '```sh',
      ...spec.examples.flatMap(([command, what]) => [`# ${what}`, command]),
      '```',
      '',
    );
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function optionTable(options: Record<string, OptionSpec>): string[] {
  return [
    '| Option | Type | Default | Description |',
    '|---|---|---|---|',
    ...Object.entries(options).map(([name, option]) => {
      const flag = `\`--${name}\`${option.alias ? ` (\`-${option.alias}\`)` : ''}`;
      const type = option.choices ? option.choices.join(' \\| ') : option.type;
      const fallback = option.demandOption
        ? 'required'
        : option.default === undefined
          ? ''
          : `\`${String(option.default)}\``;
      return `| ${flag} | ${type} | ${fallback} | ${option.describe.replaceAll('|', '\\|')} |`;
    }),
  ];
}
