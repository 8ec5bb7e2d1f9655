import { describe, expect, it } from 'vitest';
import { didMethodOf, parseDidUrl, resourceOf } from './did-url.js';

const DID = 'did:node:uAAA:EiA';

describe('parseDidUrl', () => {
  it('reads a DID, and a DID URL with its path, query and fragment', () => {
    expect(parseDidUrl(DID)).toEqual({ did: DID, method: 'node', path: '', query: undefined, fragment: undefined });
    const url = parseDidUrl(`${DID}/a/b?versionId=2&x=%20#key-1`);
    expect(url).toMatchObject({ did: DID, method: 'node', path: '/a/b', fragment: 'key-1' });
    expect([...(url?.query ?? [])]).toEqual([
      ['versionId', '2'],
      ['x', ' '],
    ]);
    expect(parseDidUrl(`${DID}#`)).toMatchObject({ fragment: '' });
    expect(parseDidUrl('did:web:example.com%3A8443#k')).toMatchObject({
      did: 'did:web:example.com%3A8443',
      fragment: 'k',
    });
  });

  it('refuses what is no DID URL', () => {
    for (const text of [
      'not-a-did',
      'did:example',
      'did:NODE:x',
      'did:node:',
      `${DID}#a b`,
      `${DID}#a#b`,
      `${DID}?a=<`,
      'did:node:x:',
    ])
      expect(parseDidUrl(text), text).toBeUndefined();
    expect(didMethodOf('did:node:abc')).toBe('node');
    expect(didMethodOf('did:node:abc#k')).toBeUndefined();
  });
});

describe('resourceOf', () => {
  const method = { id: `${DID}#key-1`, type: 'JsonWebKey2020', controller: DID };
  const embedded = { id: '#key-2', type: 'JsonWebKey2020', controller: DID };
  const service = { id: '#files', type: 'LinkedDomains', serviceEndpoint: 'https://example.com' };
  const document = {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: DID,
    verificationMethod: [method],
    authentication: [`${DID}#key-1`, embedded],
    service: [service],
  };

  it('finds a verification method, one embedded in a relationship, or a service, by absolute or relative id', () => {
    expect(resourceOf(document, DID, 'key-1')).toBe(method);
    expect(resourceOf(document, DID, 'key-2')).toBe(embedded);
    expect(resourceOf(document, DID, 'files')).toBe(service);
  });

  it('finds nothing for another fragment, the @context, or a reference', () => {
    expect(resourceOf(document, DID, 'key-3')).toBeUndefined();
    expect(resourceOf({ id: DID, authentication: [`${DID}#key-1`] }, DID, 'key-1')).toBeUndefined();
    expect(resourceOf(document, 'did:node:other', 'key-1')).toBeUndefined();
  });
});
