import { describe, expect, it } from 'vitest';
import { nodeBase, resolutionUrl } from './node-address.js';

describe('nodeBase', () => {
  it('is the serving node, keeping a path prefix in front of /explorer/', () => {
    expect(nodeBase('http://127.0.0.1:8080/explorer/')).toBe('http://127.0.0.1:8080');
    expect(nodeBase('https://a.example/node-1/explorer/?q=x')).toBe('https://a.example/node-1');
  });
  it('is the node parameter when given', () => {
    expect(nodeBase('http://127.0.0.1:8080/explorer/?node=http://127.0.0.1:9090/')).toBe('http://127.0.0.1:9090');
  });
  it('refuses a node parameter that is not an http(s) URL', () => {
    expect(() => nodeBase('http://h/explorer/?node=javascript:alert(1)')).toThrow(/http or https/);
    expect(() => nodeBase('http://h/explorer/?node=nope')).toThrow(/not a URL/);
  });
});

describe('resolutionUrl', () => {
  it('escapes the DID into one path segment', () => {
    expect(resolutionUrl('http://n', ' did:node:uAAA:abc ')).toBe(
      'http://n/sidetree/v1/identifiers/did%3Anode%3AuAAA%3Aabc',
    );
  });
});
