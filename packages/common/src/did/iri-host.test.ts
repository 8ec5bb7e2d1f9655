import { describe, expect, it } from 'vitest';
import { hostOf } from './iri-host.js';

describe('hostOf', () => {
  it("names a URL's host with its port, and a did:web DID's host (its %3A port decoded)", () => {
    expect(hostOf('https://orb.domain1.com/services/orb')).toBe('orb.domain1.com');
    expect(hostOf('http://127.0.0.1:8080/services/node')).toBe('127.0.0.1:8080');
    expect(hostOf('did:web:orb.domain1.com:services:orb#key')).toBe('orb.domain1.com');
    expect(hostOf('did:web:127.0.0.1%3A8080')).toBe('127.0.0.1:8080');
  });

  it('is undefined for what names no host', () => {
    expect(hostOf('did:web:')).toBeUndefined();
    expect(hostOf('not an iri')).toBeUndefined();
    expect(hostOf('urn:uuid:1234')).toBeUndefined();
  });
});
