import { ConfigError } from '@anchor/common/config';
import { describe, expect, it } from 'vitest';
import { buildLogDefinitions, issuerItemProblem, logItemProblem } from './log-definitions.js';

describe('log definitions', () => {
  it('reads aliases, permissions and issuer lists as trustbloc/vct', () => {
    const { logs, ignoredEndpoints } = buildLogDefinitions(
      ['maple2020:rw', 'maple2022:r', 'maple2023:w@log-server:8090'],
      ['maple2020@did:key:z6MkN7', 'maple2020@did:web:issuer.example.com%3A8443', 'maple2020@did:key:z6MkN7'],
    );
    expect(logs).toEqual([
      { alias: 'maple2020', read: true, write: true, issuers: ['did:key:z6MkN7', 'did:web:issuer.example.com%3A8443'] },
      { alias: 'maple2022', read: true, write: false, issuers: [] },
      { alias: 'maple2023', read: false, write: true, issuers: [] },
    ]);
    expect(ignoredEndpoints).toEqual(['maple2023@log-server:8090']);
  });

  it('names the problem with a malformed item', () => {
    expect(logItemProblem('main')).toMatch(/alias:permissions/);
    expect(logItemProblem('main:x')).toMatch(/r, w or rw/);
    expect(logItemProblem('main:')).toMatch(/r, w or rw/);
    expect(logItemProblem('../etc:rw')).toMatch(/letters, digits/);
    expect(logItemProblem(':rw')).toMatch(/letters, digits/);
    expect(logItemProblem('main:rw')).toBeUndefined();
    expect(issuerItemProblem('main')).toMatch(/alias@issuer/);
    expect(issuerItemProblem('@did:key:x')).toMatch(/alias@issuer/);
    expect(issuerItemProblem('main@')).toMatch(/alias@issuer/);
  });

  it('refuses duplicated aliases, issuers of unknown aliases and an empty list', () => {
    expect(() => buildLogDefinitions(['a:rw', 'a:r'], [])).toThrow(ConfigError);
    expect(() => buildLogDefinitions(['a:rw', 'a:r'], [])).toThrow(/given twice/);
    expect(() => buildLogDefinitions(['a:rw'], ['b@did:key:x'])).toThrow(/which --logs does not define/);
    expect(() => buildLogDefinitions([], [])).toThrow(/at least one log/);
  });
});
