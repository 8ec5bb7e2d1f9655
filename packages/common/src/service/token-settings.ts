import { parseTokenRules, type TokenRule } from '../http/index.js';

/**
 * A service's bearer-token rules, in one of the two forms the services' flags give them:
 *   - `definitions` + `tokens`: Orb's `<path-regex>|<read names>|<write names>` lines with
 *     named token values (`--auth-tokens-def`, `--auth-tokens`);
 *   - `open` + `read` + `write`: paths anyone may call, then one set of read and write tokens for every
 *     other path (the log's `--api-read-token`, `--api-write-token`).
 */
export type TokenSettings =
  | { readonly definitions: readonly string[]; readonly tokens: Readonly<Record<string, string>> }
  | { readonly open: readonly string[]; readonly read: readonly string[]; readonly write: readonly string[] };

/** The rules the HTTP kit applies (first matching path; no tokens defined means open). */
export function tokenRulesFor(settings: TokenSettings): TokenRule[] {
  if ('definitions' in settings) return parseTokenRules(settings.definitions, settings.tokens);
  return [...settings.open.map((path) => ({ path })), { path: '.*', read: settings.read, write: settings.write }];
}
