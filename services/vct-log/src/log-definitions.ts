import { ConfigError } from '@anchor/common/config';

/** One log of the deployment: its alias (the first path segment), permissions and issuer allow-list. */
export interface LogDefinition {
  alias: string;
  read: boolean;
  write: boolean;
  /** DIDs whose credentials add-vc accepts; empty means any issuer. */
  issuers: string[];
}

/**
 * Aliases become path segments and store names (`<alias>.entries`), so they are kept to letters, digits,
 * `_` and `-`.
 */
export const ALIAS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Checks one `--logs` item, `alias:perm[@endpoint]`; returns a reason when it is malformed. */
export function logItemProblem(item: string): string | undefined {
  const { alias, permissions } = splitLogItem(item);
  if (permissions === undefined) return 'expected alias:permissions, e.g. main:rw';
  if (!ALIAS_PATTERN.test(alias))
    return `alias ${JSON.stringify(alias)} must be 1-64 letters, digits, "_" or "-", starting with a letter or digit`;
  if (!/^[rw]+$/.test(permissions)) return `permissions ${JSON.stringify(permissions)} must be r, w or rw`;
  return undefined;
}

function splitLogItem(item: string): { alias: string; permissions: string | undefined; endpoint: string | undefined } {
  const at = item.indexOf('@');
  const head = at < 0 ? item : item.slice(0, at);
  const endpoint = at < 0 ? undefined : item.slice(at + 1);
  const colon = head.indexOf(':');
  return colon < 0
    ? { alias: head.trim(), permissions: undefined, endpoint }
    : { alias: head.slice(0, colon).trim(), permissions: head.slice(colon + 1).trim(), endpoint };
}

/** Checks one `--issuers` item, `alias@did`. */
export function issuerItemProblem(item: string): string | undefined {
  const at = item.indexOf('@');
  if (at <= 0 || at === item.length - 1) return 'expected alias@issuer, e.g. main@did:web:issuer.example.com';
  return undefined;
}

/**
 * The log definitions from `--logs` and `--issuers`. An `@endpoint` on a log (trustbloc/vct's external
 * Trillian server) is accepted for configuration compatibility and reported through `ignoredEndpoints`:
 * every log here is embedded. A duplicated alias or an issuer for an unknown alias is a ConfigError.
 */
export function buildLogDefinitions(
  logItems: readonly string[],
  issuerItems: readonly string[],
): { logs: LogDefinition[]; ignoredEndpoints: string[] } {
  if (logItems.length === 0)
    throw new ConfigError('option --logs (env VCT_LOGS): at least one log is needed, e.g. main:rw');
  const logs = new Map<string, LogDefinition>();
  const ignoredEndpoints: string[] = [];
  for (const item of logItems) {
    const problem = logItemProblem(item);
    if (problem)
      throw new ConfigError(`option --logs (env VCT_LOGS): invalid value ${JSON.stringify(item)}: ${problem}`);
    const { alias, permissions = '', endpoint } = splitLogItem(item);
    if (logs.has(alias))
      throw new ConfigError(`option --logs (env VCT_LOGS): alias ${JSON.stringify(alias)} is given twice`);
    if (endpoint !== undefined) ignoredEndpoints.push(`${alias}@${endpoint}`);
    logs.set(alias, { alias, read: permissions.includes('r'), write: permissions.includes('w'), issuers: [] });
  }
  for (const item of issuerItems) {
    const problem = issuerItemProblem(item);
    if (problem)
      throw new ConfigError(`option --issuers (env VCT_ISSUERS): invalid value ${JSON.stringify(item)}: ${problem}`);
    const at = item.indexOf('@');
    const alias = item.slice(0, at).trim();
    const issuer = item.slice(at + 1).trim();
    const definition = logs.get(alias);
    if (!definition)
      throw new ConfigError(
        `option --issuers (env VCT_ISSUERS): ${JSON.stringify(item)} names alias ${JSON.stringify(alias)}, which --logs does not define`,
      );
    if (!definition.issuers.includes(issuer)) definition.issuers.push(issuer);
  }
  return { logs: [...logs.values()], ignoredEndpoints };
}
