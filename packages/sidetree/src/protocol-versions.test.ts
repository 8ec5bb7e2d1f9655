import { KeyPair } from '@anchor/common/crypto';
import { isRetryable } from '@anchor/common/errors';
import { describe, expect, it } from 'vitest';
import { createRequest, serializeRequest } from './client/build-requests.js';
import { addPublicKeys, documentKey } from './client/patch-builders.js';
import { parseOperation } from './operations/parse-operation.js';
import { ORIGIN } from './testing/ledger.test-helpers.js';
import { DID_NODE_PROTOCOL } from './protocol.js';
import { anchorProfile, DID_NODE_TEST_PROTOCOL, profileVersion, ProtocolRegistry } from './protocol-versions.js';

describe('ProtocolRegistry', () => {
  it('runs v1.0 alone by default and names its anchors as Orb does', () => {
    const protocols = ProtocolRegistry.of(['1.0']);
    expect(protocols.current).toBe(DID_NODE_PROTOCOL);
    expect(anchorProfile(protocols.current)).toBe('https://w3id.org/orb#v0');
    expect(protocols.forAnchor(0)).toBe(DID_NODE_PROTOCOL);
  });

  it('takes the version of latest genesis time as current unless told otherwise', () => {
    expect(ProtocolRegistry.of(['1.0', 'test']).current).toBe(DID_NODE_TEST_PROTOCOL);
    expect(ProtocolRegistry.of(['test', '1.0'], '1.0').current).toBe(DID_NODE_PROTOCOL);
  });

  it('reads each anchor under the version its profile names, after a switch too', () => {
    const protocols = ProtocolRegistry.of(['1.0', 'test'], 'test');
    expect(protocols.forAnchor(profileVersion('https://w3id.org/orb#v0')!)).toBe(DID_NODE_PROTOCOL);
    expect(protocols.forAnchor(profileVersion('https://w3id.org/orb#v777')!)).toBe(DID_NODE_TEST_PROTOCOL);
    expect(protocols.forOperation(0)).toBe(DID_NODE_PROTOCOL);
    expect(protocols.forOperation(undefined)).toBe(DID_NODE_TEST_PROTOCOL);
  });

  it('refuses, retryably, an anchor of a version the node does not run', () => {
    const protocols = ProtocolRegistry.of(['1.0']);
    let caught: unknown;
    try {
      protocols.forAnchor(777);
    } catch (error) {
      caught = error;
    }
    expect(String((caught as Error).message)).toMatch(
      /protocol version 777, which this node does not run \(it runs 1\.0\)/,
    );
    expect(isRetryable(caught)).toBe(true);
  });

  it('refuses unknown, repeated or unlisted versions with one clear message', () => {
    expect(() => ProtocolRegistry.of(['2.0'])).toThrow("unknown protocol version '2.0' (known: 1.0, test)");
    expect(() => ProtocolRegistry.of(['1.0', '1.0'])).toThrow('listed twice');
    expect(() => ProtocolRegistry.of(['1.0'], 'test')).toThrow("the current protocol version 'test' is not among");
    expect(() => ProtocolRegistry.of([])).toThrow('at least one protocol version');
  });

  it('reads only did:node anchor profiles', () => {
    expect(profileVersion('https://w3id.org/orb#v12')).toBe(12);
    expect(profileVersion('https://w3id.org/orb#v012')).toBeUndefined();
    expect(profileVersion('https://w3id.org/orb#vx')).toBeUndefined();
    expect(profileVersion('https://example.com#v0')).toBeUndefined();
  });

  it('keeps the test version limits stricter than v1.0 (what the node test of two versions relies on)', () => {
    expect(DID_NODE_TEST_PROTOCOL.maxOperationSize).toBeLessThan(DID_NODE_PROTOCOL.maxOperationSize);
    expect(DID_NODE_TEST_PROTOCOL.maxDeltaSize).toBeLessThan(DID_NODE_PROTOCOL.maxDeltaSize);
  });
});

/** A create publishing `keys` Ed25519 keys (about 164 bytes each): Orb's versions test sizes operations this way. */
function createWithKeys(keys: number): Buffer {
  const patches = [
    addPublicKeys(
      ...Array.from({ length: keys }, (_, i) =>
        documentKey(`key-${i}`, KeyPair.generate('Ed25519'), { purposes: ['authentication'] }),
      ),
    ),
  ];
  const built = createRequest({
    recoveryKey: KeyPair.generate('Ed25519'),
    updateKey: KeyPair.generate('Ed25519'),
    anchorOrigin: ORIGIN,
    patches,
  });
  return serializeRequest(built.request);
}

describe("two versions, two sets of limits (Orb's versions feature)", () => {
  it('v1.0 accepts a create with 9 keys (1,816 bytes) that the test version refuses as too large', () => {
    const request = createWithKeys(9);
    expect(request.length).toBeGreaterThan(DID_NODE_TEST_PROTOCOL.maxOperationSize);
    expect(parseOperation(request, { protocol: DID_NODE_PROTOCOL }).type).toBe('create');
    expect(() => parseOperation(request, { protocol: DID_NODE_TEST_PROTOCOL })).toThrow(/exceeds|too large|at most/i);
  });

  it('v1.0 refuses a create with 10 keys: its delta is over 1,700 bytes', () => {
    expect(() => parseOperation(createWithKeys(10), { protocol: DID_NODE_PROTOCOL })).toThrow(/delta/i);
  });
});
