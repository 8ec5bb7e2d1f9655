import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../config/errors.js';

/** A bearer token, optionally named (the name becomes `principal.name`; the value is never logged). */
export interface NamedToken {
  name?: string;
  value: string;
}

/**
 * Which tokens a path needs: `read` for GET/HEAD/OPTIONS, `write` for POST/PUT/DELETE/PATCH. Any one of
 * the listed tokens is enough; an empty list means no check for that method. Strings are token values.
 *
 * `path` is a regular expression matched against the request path (raw, undecoded) from its start up to
 * a segment boundary, case-insensitively: `/log` covers `/log` and `/log/x` but not `/log-monitor`, and
 * `/services/node/.*` covers `/services/node/outbox` but not `/services/node` itself.
 */
export interface TokenRule {
  path: string | RegExp;
  read?: readonly (string | NamedToken)[];
  write?: readonly (string | NamedToken)[];
}

export interface CompiledToken {
  name: string | undefined;
  digest: Buffer;
}

interface CompiledRule {
  pattern: RegExp;
  read: CompiledToken[];
  write: CompiledToken[];
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// Comparing fixed-length digests keeps both the token's content and its length out of the timing.
const digestOf = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

function compileTokens(tokens: readonly (string | NamedToken)[] | undefined): CompiledToken[] {
  return (tokens ?? []).map((token) => {
    const { name, value } = typeof token === 'string' ? { name: undefined, value: token } : token;
    if (value === '')
      throw new Error(name === undefined ? 'a bearer token has an empty value' : `token "${name}" has an empty value`);
    return { name, digest: digestOf(value) };
  });
}

export function compilePathPattern(path: string | RegExp): RegExp {
  const source = typeof path === 'string' ? path : path.source;
  return new RegExp(`^(?:${source})(?=/|$)`, 'i');
}

/** Compiled bearer-token rules: the first rule whose path matches decides, as in Orb. */
export class TokenRules {
  private readonly rules: CompiledRule[];

  constructor(rules: readonly TokenRule[] = []) {
    this.rules = rules.map((rule) => ({
      pattern: compilePathPattern(rule.path),
      read: compileTokens(rule.read),
      write: compileTokens(rule.write),
    }));
  }

  /** The tokens that may authorise this request; empty when none is defined (no check). */
  tokensFor(path: string, method: string): readonly CompiledToken[] {
    const rule = this.rules.find((r) => r.pattern.test(path));
    if (!rule) return [];
    return READ_METHODS.has(method.toUpperCase()) ? rule.read : rule.write;
  }

  /** The matching token, compared in constant time against every candidate (no early exit). */
  match(tokens: readonly CompiledToken[], presented: string): { name: string | undefined } | undefined {
    const digest = digestOf(presented);
    let found: CompiledToken | undefined;
    for (const token of tokens) {
      if (timingSafeEqual(token.digest, digest) && found === undefined) found = token;
    }
    return found && { name: found.name };
  }
}

/**
 * Reads Orb's configuration format so deployments can reuse theirs:
 *   definitions (`--auth-tokens-def`, comma-separated in env): `<path-regex>|<read1>&<read2>|<write1>&...`
 *   tokens (`--auth-tokens`): `name=value` pairs, e.g. `{ admin: 'ADMIN_TOKEN', read: 'READ_TOKEN' }`.
 * A definition with only a path makes that path public (first match wins). Problems are `ConfigError`s
 * (exit code 2 under `runMain`) naming the definition but never a token value.
 */
export function parseTokenRules(definitions: readonly string[], tokens: Readonly<Record<string, string>>): TokenRule[] {
  for (const [name, value] of Object.entries(tokens)) {
    if (value === '') throw new ConfigError(`auth token "${name}" has an empty value`);
  }
  return definitions.map((definition, index) => {
    const where = `auth token definition ${index + 1} (${JSON.stringify(definition)})`;
    const parts = definition.split('|').map((part) => part.trim());
    if (parts.length > 3) throw new ConfigError(`${where}: expected <path-regex>|<read tokens>|<write tokens>`);
    const [path = '', read = '', write = ''] = parts;
    if (path === '') throw new ConfigError(`${where}: the path pattern is empty`);
    try {
      compilePathPattern(path);
    } catch (error) {
      throw new ConfigError(`${where}: invalid path pattern: ${(error as Error).message}`);
    }
    const resolve = (names: string): NamedToken[] =>
      names
        .split('&')
        .map((name) => name.trim())
        .filter((name) => name !== '')
        .map((name) => {
          const value = tokens[name];
          if (value === undefined || !Object.hasOwn(tokens, name)) {
            const known = Object.keys(tokens);
            throw new ConfigError(
              `${where}: unknown token name "${name}" (defined: ${known.length > 0 ? known.join(', ') : 'none'})`,
            );
          }
          return { name, value };
        });
    return { path, read: resolve(read), write: resolve(write) };
  });
}
