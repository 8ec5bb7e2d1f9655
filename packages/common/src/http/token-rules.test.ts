import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.js';
import { TokenRules, parseTokenRules } from './index.js';

/** The definitions used throughout Orb's BDD suite, with this project's path names. */
const ORIGINAL_DEFS = [
  '/nodeinfo/2.0',
  '/nodeinfo/2.1',
  '/services/node/keys',
  '/services/node/outbox|admin&read|admin',
  '/services/node/inbox|admin&read|admin',
  '/services/node/acceptlist|admin&read|admin',
  '/services/node/.*|read&admin',
  '/sidetree/.*/identifiers|read&admin',
  '/sidetree/.*/operations|read&admin|admin',
  '/cas|read&admin',
  '/log-monitor||admin',
  '/log||admin',
  '/vc|read&admin',
  '/allowedorigins|admin&read|admin',
  '/policy|read&admin|admin',
  '/loglevels||admin',
];
const TOKENS = { admin: 'ADMIN_TOKEN', read: 'READ_TOKEN' };

describe("parseTokenRules (Orb's format)", () => {
  const rules = new TokenRules(parseTokenRules(ORIGINAL_DEFS, TOKENS));
  const names = (path: string, method: string) => rules.tokensFor(path, method).map((t) => t.name);

  it('resolves token names for read and write', () => {
    expect(names('/sidetree/v1/operations', 'POST')).toEqual(['admin']);
    expect(names('/sidetree/v1/operations', 'GET')).toEqual(['read', 'admin']);
    expect(names('/sidetree/v1/identifiers/did:node:abc', 'GET')).toEqual(['read', 'admin']);
    expect(names('/services/node/outbox', 'HEAD')).toEqual(['admin', 'read']);
    expect(names('/services/node/outbox', 'DELETE')).toEqual(['admin']);
    expect(names('/services/node/outbox', 'PATCH')).toEqual(['admin']);
  });

  it('lets the first matching definition decide, even one without tokens', () => {
    expect(names('/services/node/keys/main-key', 'GET')).toEqual([]);
    expect(names('/services/node/followers', 'GET')).toEqual(['read', 'admin']);
    expect(names('/nodeinfo/2.0', 'GET')).toEqual([]);
  });

  it("anchors patterns at the start and at a segment boundary (not Orb's unanchored match)", () => {
    expect(names('/log-monitor', 'POST')).toEqual(['admin']);
    expect(names('/log', 'POST')).toEqual(['admin']);
    expect(names('/log/extra', 'POST')).toEqual(['admin']);
    expect(names('/logx', 'POST')).toEqual([]);
    expect(names('/x/cas/abc', 'GET')).toEqual([]);
    expect(names('/cas/uEiAbc', 'GET')).toEqual(['read', 'admin']);
    expect(names('/services/node', 'GET')).toEqual([]);
    expect(names('/loglevels', 'GET')).toEqual([]);
    expect(names('/LogLevels', 'POST')).toEqual(['admin']);
    expect(names('/unknown', 'POST')).toEqual([]);
  });

  it('compares tokens by value and reports the name', () => {
    const tokens = rules.tokensFor('/cas/x', 'GET');
    expect(rules.match(tokens, 'READ_TOKEN')).toEqual({ name: 'read' });
    expect(rules.match(tokens, 'ADMIN_TOKEN')).toEqual({ name: 'admin' });
    expect(rules.match(tokens, 'READ_TOKEN ')).toBeUndefined();
    expect(rules.match(tokens, '')).toBeUndefined();
    expect(rules.match(tokens, 'read')).toBeUndefined();
  });

  it.each([
    [['/x|nobody'], /definition 1 \("\/x\|nobody"\): unknown token name "nobody" \(defined: admin, read\)/],
    [['/x||admin&ghost'], /unknown token name "ghost"/],
    [['|admin'], /the path pattern is empty/],
    [['/x|a|b|c'], /expected <path-regex>\|<read tokens>\|<write tokens>/],
    [['/x(|admin'], /invalid path pattern/],
    [['/ok|admin', '/x|toString'], /definition 2 .*unknown token name "toString"/],
  ])('rejects %j with a ConfigError', (defs, reason) => {
    let thrown: unknown;
    try {
      parseTokenRules(defs, TOKENS);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(reason);
    expect((thrown as Error).message).not.toMatch(/ADMIN_TOKEN|READ_TOKEN/);
  });

  it('rejects empty token values without echoing anything secret', () => {
    expect(() => parseTokenRules(['/x|a'], { a: '' })).toThrow(/auth token "a" has an empty value/);
    expect(() => new TokenRules([{ path: '/x', read: [''] }])).toThrow(/empty value/);
  });
});
