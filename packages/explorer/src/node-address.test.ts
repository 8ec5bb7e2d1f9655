import { describe, expect, it } from 'vitest';
import { didWebForm, nodeBase, resolutionUrl, searchTarget, viewHref } from './node-address.js';

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

describe('didWebForm', () => {
  it('names the node host, its port percent-encoded, and the suffix', () => {
    expect(didWebForm('http://127.0.0.1:8081', 'did:node:uAAA:EiCM')).toBe('did:web:127.0.0.1%3A8081:scid:EiCM');
    expect(didWebForm('https://n.example', 'did:node:uEiD8:EiCM')).toBe('did:web:n.example:scid:EiCM');
  });
  it('has none under a path prefix or for another method', () => {
    expect(didWebForm('https://n.example/node-1', 'did:node:uAAA:EiCM')).toBeUndefined();
    expect(didWebForm('https://n.example', 'did:web:x')).toBeUndefined();
  });
});

describe('searchTarget', () => {
  it('reads a DID of any form as a DID', () => {
    expect(searchTarget(' did:node:uAAA:EiCM ')).toEqual({ did: 'did:node:uAAA:EiCM' });
    expect(searchTarget('did:web:h:scid:EiCM')).toEqual({ did: 'did:web:h:scid:EiCM' });
  });
  it('reads an anchor hash or hashlink as an anchor', () => {
    const hash = 'uEiD8VhfPhYtZFxexZPgY2otvCxfKq3qstjLueb6KHWw9sA';
    expect(searchTarget(hash)).toEqual({ anchor: hash });
    expect(searchTarget(`hl:${hash}:uoQ-BeEpodHRw`)).toEqual({ anchor: hash });
  });
  it('is nothing for blank input, and a DID for the rest (the node says what is wrong)', () => {
    expect(searchTarget('  ')).toBeUndefined();
    expect(searchTarget('nope')).toEqual({ did: 'nope' });
  });
});

describe('viewHref', () => {
  it('keeps the node parameter', () => {
    expect(viewHref('http://h/explorer/?node=http://n:1&did=x', { view: 'anchors' })).toBe(
      '?view=anchors&node=http%3A%2F%2Fn%3A1',
    );
    expect(viewHref('http://h/explorer/', {})).toBe('.');
  });
});
