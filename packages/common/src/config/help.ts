import { optionEntries, type ConfigShape } from './config-spec.js';
import type { OptionDef } from './options.js';

function shownDefault(def: OptionDef<unknown>): string {
  if (def.required) return 'required';
  const value = def.defaultValue;
  if (value === undefined) return 'none';
  if (def.secret) return '(secret)';
  if (Array.isArray(value) && value.length === 0) return 'none';
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return 'none';
  const text = def.format(value as NonNullable<unknown>);
  return text === '' ? '""' : text;
}

function flagColumn(def: OptionDef<unknown>): string {
  return def.short === undefined ? `    --${def.flag}` : `-${def.short}, --${def.flag}`;
}

/** The `--help` text: every option with its flags, value type, env vars, default and help. */
export function renderHelp(spec: ConfigShape): string {
  const lines = [`Usage: ${spec.program} [options]`, ''];
  if (spec.description) lines.push(spec.description, '');
  lines.push(
    'Options (a flag beats its environment variables; each variable may be given as <NAME>_FILE, a file holding the value):',
  );
  for (const { def } of optionEntries(spec)) {
    const valueHint = def.isSwitch ? '' : ` <${def.type}>`;
    lines.push(`  ${flagColumn(def)}${valueHint}`);
    lines.push(`        ${def.help}`);
    const env = def.env.length === 0 ? 'env: none' : `env: ${def.env.join(', ')}`;
    const repeat = def.accumulates ? '; repeatable, or comma-separated' : '';
    lines.push(`        ${env}; default: ${shownDefault(def)}${repeat}`);
  }
  lines.push('  -h, --help', '        show this help and exit');
  if (spec.version !== undefined) lines.push('      --version', '        print the version and exit');
  return `${lines.join('\n')}\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * The option table in Markdown, for a service README (`docs` embed it; a test compares the README
 * against `undocumentedOptions`).
 */
export function renderOptionsMarkdown(spec: ConfigShape): string {
  const rows = ['| Flag | Environment | Type | Default | Description |', '|---|---|---|---|---|'];
  for (const { def } of optionEntries(spec)) {
    const flags = def.short === undefined ? `\`--${def.flag}\`` : `\`-${def.short}\`, \`--${def.flag}\``;
    const env = def.env.length === 0 ? '' : def.env.map((name) => `\`${name}\``).join(', ');
    const shown = shownDefault(def);
    const dflt = shown === 'required' || shown === 'none' || shown === '(secret)' ? shown : `\`${shown}\``;
    rows.push(`| ${flags} | ${env} | ${cell(def.type)} | ${cell(dflt)} | ${cell(def.help)} |`);
  }
  return `${rows.join('\n')}\n`;
}

function mentions(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w-])${escaped}(?![\\w-])`).test(text);
}

/** Flags (`--x`) and env vars a document fails to mention: empty when a README lists every option. */
export function undocumentedOptions(spec: ConfigShape, markdown: string): string[] {
  const missing: string[] = [];
  for (const { def } of optionEntries(spec)) {
    if (!mentions(markdown, `--${def.flag}`)) missing.push(`--${def.flag}`);
    for (const name of def.env) if (!mentions(markdown, name)) missing.push(name);
  }
  return missing;
}

/**
 * The effective configuration as flag → text, secrets masked, for a start-up log line. Unset optional
 * values are left out.
 */
export function describeConfig(spec: ConfigShape, config: object): Record<string, string> {
  const described: Record<string, string> = {};
  const values = config as Readonly<Record<string, unknown>>;
  for (const { section, key, def } of optionEntries(spec)) {
    const value =
      section === undefined ? values[key] : (values[section] as Readonly<Record<string, unknown>> | undefined)?.[key];
    if (value === undefined) continue;
    described[def.flag] = def.secret ? '***' : def.format(value as NonNullable<unknown>);
  }
  return described;
}
