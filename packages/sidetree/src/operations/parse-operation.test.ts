import { KeyPair, signJws } from '@anchor/common/crypto';
import { base64UrlEncode, canonicalBytes, canonicalize, encodedMultihash, SHA2_512 } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { createRequest, serializeRequest } from '../client/build-requests.js';
import { addServices, service } from '../client/patch-builders.js';
import { hashCanonical } from '../hashing.js';
import { commitmentOf, revealValueOf } from '../keys/signing-key.js';
import { DID_NODE_PROTOCOL } from '../protocol.js';
import { expectBadRequest } from '../testing/assertions.test-helpers.js';
import { ORIGIN } from '../testing/ledger.test-helpers.js';
import { copy, payloadOf, requestFixture, resign, signWithHeader } from '../testing/requests.test-helpers.js';
import { parseOperation, parseOperationRequest } from './parse-operation.js';
import type { ParsedOperation, SignedOperation } from './types.js';
import { signatureProblem } from './verify-signature.js';

const NOW = 1_700_000_000;
const signed = (operation: ParsedOperation): SignedOperation => {
  if (operation.type === 'create') throw new Error('expected a signed operation');
  return operation;
};
const ingest = (request: unknown) =>
  parseOperation(typeof request === 'string' ? request : JSON.stringify(request), { now: NOW });
const anchored = (request: unknown) => parseOperationRequest(request, { mode: 'anchored' });
const fixture = requestFixture('Ed25519');
// did:node's keys and patches under a profile that does not require anchor origins.
const WITHOUT_ORIGIN_REQUIREMENT = { ...DID_NODE_PROTOCOL, requireAnchorOrigin: false };

describe('parseOperation: valid requests', () => {
  it('parses a create: suffix over suffixData with anchorOrigin, commitments, canonical request', () => {
    const operation = ingest(fixture.created.request);
    if (operation.type !== 'create') throw new Error('expected a create');
    expect(operation.didSuffix).toBe(hashCanonical(fixture.created.request.suffixData));
    expect(operation.didSuffix).not.toBe(
      hashCanonical({ ...fixture.created.request.suffixData, anchorOrigin: undefined }),
    );
    expect(operation.anchorOrigin).toBe(ORIGIN);
    expect(operation.nextRecoveryCommitment).toBe(commitmentOf(fixture.keys.recovery.publicJwk()));
    expect(operation.nextUpdateCommitment).toBe(commitmentOf(fixture.keys.update.publicJwk()));
    expect(operation.patches).toHaveLength(2);
    expect(operation.deltaProblem).toBeUndefined();
    expect(operation.canonicalRequest.toString()).toBe(canonicalize(fixture.created.request));
  });

  it('parses update, recover and deactivate with their reveal values and hash-map keys', () => {
    const update = ingest(fixture.update());
    expect(update.type).toBe('update');
    if (update.type !== 'update') return;
    expect(update.revealValue).toBe(revealValueOf(fixture.keys.update.publicJwk()));
    expect(update.revealedCommitment).toBe(commitmentOf(fixture.keys.update.publicJwk()));
    expect(update.nextUpdateCommitment).toBe(commitmentOf(fixture.keys.nextUpdate.publicJwk()));
    expect(update.anchorOrigin).toBeUndefined();
    expect(update.canonicalRequest.toString()).toBe(
      canonicalize(fixture.update()).replace(/"signedData":"[^"]+"/, `"signedData":"${update.signedData}"`),
    );

    const recover = ingest(fixture.recover());
    if (recover.type !== 'recover') throw new Error('expected a recover');
    expect(recover.revealedCommitment).toBe(commitmentOf(fixture.keys.recovery.publicJwk()));
    expect(recover.nextRecoveryCommitment).toBe(commitmentOf(fixture.keys.nextRecovery.publicJwk()));
    expect(recover.anchorOrigin).toBe(ORIGIN);

    const deactivate = signed(ingest(fixture.deactivate()));
    expect(deactivate.revealedCommitment).toBe(commitmentOf(fixture.keys.recovery.publicJwk()));
    expect(ingest(fixture.deactivate({ style: 'dif' })).type).toBe('deactivate');
  });

  it('keeps each canonical request in memory of its own, not in a shared pool chunk', () => {
    // A cached parsed operation would otherwise keep a whole 8 KiB chunk of Buffer's pool alive.
    const operations = [fixture.created.request, fixture.update(), fixture.recover(), fixture.deactivate()].map(ingest);
    for (const { canonicalRequest } of operations) {
      expect(canonicalRequest.byteOffset).toBe(0);
      expect(canonicalRequest.buffer.byteLength).toBe(canonicalRequest.byteLength);
    }
  });

  it('accepts an Ed25519 signing key sent the Go way, with "y":""', () => {
    const key = fixture.keys.update;
    const request = fixture.update();
    request.signedData = resign(request.signedData, key, (payload) => {
      payload.updateKey = { ...(payload.updateKey as object), y: '' };
    });
    expect(signed(ingest(request)).revealValue).toBe(revealValueOf(key.publicJwk()));
  });

  it('accepts signed data with a kid in a sorted header', () => {
    expect(ingest(fixture.update({ kid: 'update-key-1' })).type).toBe('update');
  });

  it('parses P-256 and secp256k1 signed operations', () => {
    for (const type of ['P-256', 'secp256k1'] as const) {
      const other = requestFixture(type);
      expect(ingest(other.update()).didSuffix).toBe(other.didSuffix);
      expect(ingest(other.recover()).didSuffix).toBe(other.didSuffix);
      expect(ingest(other.deactivate()).didSuffix).toBe(other.didSuffix);
    }
  });
});

describe('parseOperation: ingest rejections', () => {
  const create = fixture.created.request;

  it('rejects requests that are too large, not UTF-8, not JSON or not objects', () => {
    expectBadRequest(() => ingest(JSON.stringify(create) + ' '.repeat(2500)), 'operation request is too large');
    expectBadRequest(() => parseOperation(Buffer.from([0x7b, 0xff, 0x7d])), 'not valid UTF-8');
    expectBadRequest(() => ingest('{"type":'), 'not valid JSON');
    expectBadRequest(() => ingest('[]'), 'must be a JSON object');
    expectBadRequest(() => ingest({ suffixData: {} }), 'operation type is missing');
    expectBadRequest(() => ingest({ type: 'rotate' }), "operation type 'rotate' is not supported");
  });

  it('rejects unknown members everywhere at ingest', () => {
    expectBadRequest(() => ingest({ ...create, extra: 1 }), "create request has unknown member 'extra'");
    expectBadRequest(
      () => ingest({ ...create, suffixData: { ...create.suffixData, extra: 1 } }),
      "suffixData has unknown member 'extra'",
    );
    const delta = { ...create.delta, extra: 1 };
    expectBadRequest(() => ingest({ ...create, delta }), "delta has unknown member 'extra'");
    expectBadRequest(() => ingest({ ...fixture.update(), extra: 1 }), "update request has unknown member 'extra'");
    const update = fixture.update();
    update.signedData = resign(update.signedData, fixture.keys.update, (payload) => {
      payload.extra = true;
    });
    expectBadRequest(() => ingest(update), "signedData payload has unknown member 'extra'");
  });

  it('rejects malformed hashes with the member and the reason', () => {
    const withDeltaHash = (deltaHash: unknown) => ({ ...create, suffixData: { ...create.suffixData, deltaHash } });
    expectBadRequest(() => ingest(withDeltaHash(undefined)), 'suffixData.deltaHash is missing');
    expectBadRequest(() => ingest(withDeltaHash(7)), 'suffixData.deltaHash must be a string');
    expectBadRequest(() => ingest(withDeltaHash('Ei+A')), 'suffixData.deltaHash is not canonical base64url');
    expectBadRequest(() => ingest(withDeltaHash('EiA')), 'suffixData.deltaHash is not a valid multihash');
    expectBadRequest(
      () => ingest(withDeltaHash(encodedMultihash('x', SHA2_512))),
      'uses multihash code 19, but did:node v1.0 allows only 18',
    );
    expectBadRequest(
      () => ingest(withDeltaHash('E'.repeat(101))),
      'suffixData.deltaHash is too long: 101 characters exceeds the maximum hash length 100',
    );
    expectBadRequest(
      () => ingest({ ...fixture.update(), didSuffix: 'notahash' }),
      'didSuffix is not a valid multihash',
    );
    expectBadRequest(() => ingest({ ...fixture.update(), revealValue: undefined }), 'revealValue is missing');
  });

  it('rejects a create without anchor origin (did:node) or with a bad one, and a bad suffixData type', () => {
    const { anchorOrigin: _omitted, ...withoutOrigin } = create.suffixData;
    const noOrigin = createRequest({
      recoveryKey: fixture.keys.recovery,
      updateKey: fixture.keys.update,
      patches: create.delta.patches,
    });
    expect(noOrigin.request.suffixData).toEqual(withoutOrigin);
    expectBadRequest(() => ingest(noOrigin.request), 'anchor origin must be specified (suffixData.anchorOrigin)');
    expect(
      parseOperation(serializeRequest(noOrigin.request), { protocol: WITHOUT_ORIGIN_REQUIREMENT }).anchorOrigin,
    ).toBeUndefined();
    expectBadRequest(
      () => ingest({ ...create, suffixData: { ...create.suffixData, anchorOrigin: '' } }),
      'suffixData.anchorOrigin must be a non-empty string',
    );
    expectBadRequest(
      () => ingest({ ...create, suffixData: { ...create.suffixData, anchorOrigin: 5 } }),
      'suffixData.anchorOrigin must be a non-empty string',
    );
    expectBadRequest(
      () => ingest({ ...create, suffixData: { ...create.suffixData, type: 'toolong' } }),
      'suffixData.type must be 1 to 4 base64url characters',
    );
  });

  it('rejects bad deltas: missing, oversized, empty patches, bad commitment, hash mismatch', () => {
    expectBadRequest(() => ingest({ type: 'create', suffixData: create.suffixData }), 'delta is missing');
    expectBadRequest(() => ingest({ ...create, delta: [] }), 'delta must be a JSON object');
    const big = createRequest({
      recoveryKey: fixture.keys.recovery,
      updateKey: fixture.keys.update,
      anchorOrigin: ORIGIN,
      patches: [
        addServices(
          ...Array.from({ length: 20 }, (_, index) =>
            service(`s${index}`, 'LinkedDomains', `https://service-${index}.example.com/endpoint`),
          ),
        ),
      ],
    });
    expectBadRequest(() => ingest(big.request), 'delta is too large:');
    expectBadRequest(() => ingest(big.request), 'exceeds the maximum of 1700');
    const emptyPatches = createRequest({
      recoveryKey: fixture.keys.recovery,
      updateKey: fixture.keys.update,
      anchorOrigin: ORIGIN,
      patches: [],
    });
    expectBadRequest(() => ingest(emptyPatches.request), 'delta.patches must be a non-empty array');
    const badCommitment = copy(create);
    badCommitment.delta.updateCommitment = 'nope';
    badCommitment.suffixData.deltaHash = hashCanonical(badCommitment.delta);
    expectBadRequest(() => ingest(badCommitment), 'delta.updateCommitment is not a valid multihash');
    const tampered = copy(create);
    tampered.delta.updateCommitment = commitmentOf(fixture.keys.nextUpdate.publicJwk());
    expectBadRequest(() => ingest(tampered), 'delta does not match suffixData.deltaHash');
    const update = fixture.update();
    update.delta.updateCommitment = commitmentOf(KeyPair.generate('Ed25519').publicJwk());
    expectBadRequest(() => ingest(update), 'delta does not match signedData.deltaHash');
  });

  it('rejects patches the profile does not enable, naming the patch', () => {
    const replace = createRequest({
      recoveryKey: fixture.keys.recovery,
      updateKey: fixture.keys.update,
      anchorOrigin: ORIGIN,
      patches: [{ action: 'replace', document: { publicKeys: [] } }],
    });
    expectBadRequest(
      () => ingest(replace.request),
      "invalid patch 0: action 'replace' is not enabled by did:node v1.0",
    );
    const jsonPatch = copy(replace.request) as unknown as {
      delta: { patches: unknown[] };
      suffixData: { deltaHash: string };
    };
    jsonPatch.delta.patches = [{ action: 'ietf-json-patch', patches: [] }];
    jsonPatch.suffixData.deltaHash = hashCanonical(jsonPatch.delta);
    expectBadRequest(() => ingest(jsonPatch), "invalid patch 0: action 'ietf-json-patch' is not a known patch action");
  });

  it('rejects key reuse', () => {
    const sameKeys = createRequest({
      recoveryKey: fixture.keys.recovery,
      updateKey: fixture.keys.recovery,
      anchorOrigin: ORIGIN,
      patches: fixture.created.request.delta.patches,
    });
    expectBadRequest(
      () => ingest(sameKeys.request),
      'key reuse: delta.updateCommitment equals suffixData.recoveryCommitment',
    );
    expectBadRequest(
      () => ingest(fixture.update({ nextUpdateKey: fixture.keys.update })),
      'key reuse: delta.updateCommitment is the commitment of the current update key',
    );
    expectBadRequest(
      () => ingest(fixture.recover({ nextRecoveryKey: fixture.keys.recovery })),
      'key reuse: signedData.recoveryCommitment is the commitment of the current recovery key',
    );
    expectBadRequest(
      () => ingest(fixture.recover({ nextUpdateKey: fixture.keys.nextRecovery })),
      'key reuse: delta.updateCommitment equals signedData.recoveryCommitment',
    );
  });

  it('rejects a wrong reveal value and a bad signature', () => {
    expectBadRequest(
      () => ingest({ ...fixture.update(), revealValue: revealValueOf(fixture.keys.nextUpdate.publicJwk()) }),
      'revealValue does not match the hash of signedData.updateKey',
    );
    expectBadRequest(
      () => ingest({ ...fixture.recover(), revealValue: revealValueOf(fixture.keys.update.publicJwk()) }),
      'revealValue does not match the hash of signedData.recoveryKey',
    );
    const update = fixture.update();
    const [header, payload] = update.signedData.split('.');
    const forged = `${header}.${payload}.${base64UrlEncode(KeyPair.generate('Ed25519').sign(Buffer.from(`${header}.${payload}`)))}`;
    expectBadRequest(() => ingest({ ...update, signedData: forged }), 'signedData signature is invalid');
    const truncated = `${header}.${payload}.${base64UrlEncode(Buffer.alloc(10))}`;
    expectBadRequest(() => ingest({ ...update, signedData: truncated }), 'signedData signature is invalid');
  });

  it('rejects malformed signed data and headers Orb would read differently', () => {
    const update = fixture.update();
    expectBadRequest(() => ingest({ ...update, signedData: undefined }), 'signedData is missing');
    expectBadRequest(() => ingest({ ...update, signedData: 42 }), 'signedData must be a compact JWS string');
    expectBadRequest(() => ingest({ ...update, signedData: 'a.b' }), 'signedData: JWS must have exactly 3 parts');
    const payload = payloadOf(update.signedData);
    const key = fixture.keys.update;
    expectBadRequest(
      () => ingest({ ...update, signedData: signWithHeader('{"alg":"EdDSA","typ":"JWT"}', payload, key) }),
      "may hold only alg and kid, not 'typ'",
    );
    expectBadRequest(
      () => ingest({ ...update, signedData: signWithHeader('{"kid":"k1","alg":"EdDSA"}', payload, key) }),
      'must be compact JSON with sorted members',
    );
    expectBadRequest(
      () => ingest({ ...update, signedData: signWithHeader('{ "alg":"EdDSA"}', payload, key) }),
      'must be compact JSON with sorted members',
    );
    expectBadRequest(
      () => ingest({ ...update, signedData: signWithHeader('{"alg":"none"}', payload, key) }),
      "signedData alg 'none' is not allowed",
    );
    expectBadRequest(
      () => ingest({ ...update, signedData: signWithHeader('{"alg":"EdDSA","kid":7}', payload, key) }),
      'signedData kid must be a string',
    );
    const notJson = `${base64UrlEncode('{"alg":"EdDSA"}')}.${base64UrlEncode('not json')}.${base64UrlEncode(Buffer.alloc(64))}`;
    expectBadRequest(() => ingest({ ...update, signedData: notJson }), 'signedData payload is not valid UTF-8 JSON');
    const notObject = `${base64UrlEncode('{"alg":"EdDSA"}')}.${base64UrlEncode('[1]')}.${base64UrlEncode(Buffer.alloc(64))}`;
    expectBadRequest(() => ingest({ ...update, signedData: notObject }), 'signedData payload must be a JSON object');
  });

  it('rejects an alg the profile does not allow, or one that is not the key’s own', () => {
    const p384 = requestFixture('P-384');
    expectBadRequest(
      () => ingest(p384.update()),
      "signedData alg 'ES384' is not allowed by did:node v1.0 (allowed: EdDSA, ES256, ES256K)",
    );
    const p256 = requestFixture('P-256');
    const update = p256.update();
    const mislabelled = signWithHeader('{"alg":"ES256K"}', payloadOf(update.signedData), p256.keys.update);
    expectBadRequest(
      () => ingest({ ...update, signedData: mislabelled }),
      'signedData alg ES256K does not match the P-256 signing key (expected ES256)',
    );
    // Orb judges by the key alone, so anchored data with such a header still verifies.
    const operation = anchored({ ...update, signedData: mislabelled });
    expect(operation.type === 'update' && signatureProblem(operation)).toBeUndefined();
  });

  it('rejects signing keys that are private, unknown-shaped, on a disallowed curve or with a bad nonce', () => {
    const key = fixture.keys.update;
    const withKey = (updateKey: unknown) => {
      const request = fixture.update();
      request.signedData = resign(request.signedData, key, (payload) => {
        payload.updateKey = updateKey;
      });
      return request;
    };
    const jwk = key.publicJwk();
    expectBadRequest(() => ingest(withKey(undefined)), 'signedData.updateKey is missing');
    expectBadRequest(() => ingest(withKey('key')), 'signedData.updateKey must be a JSON object');
    expectBadRequest(
      () => ingest(withKey(key.privateJwk())),
      'signedData.updateKey must be a public key: it carries the private member d',
    );
    expectBadRequest(() => ingest(withKey({ ...jwk, kid: 'k' })), "signedData.updateKey has unknown member 'kid'");
    expectBadRequest(
      () => ingest(withKey({ ...jwk, crv: 'X25519' })),
      "signedData.updateKey curve 'X25519' is not allowed by did:node v1.0",
    );
    expectBadRequest(
      () => ingest(withKey({ ...jwk, kty: 'EC' })),
      "signedData.updateKey.kty must be 'OKP' for curve Ed25519",
    );
    expectBadRequest(
      () => ingest(withKey({ ...jwk, y: 'AAAA' })),
      'signedData.updateKey.y must be absent or empty for an Ed25519 key',
    );
    expectBadRequest(() => ingest(withKey({ kty: 'OKP', crv: 'Ed25519' })), 'signedData.updateKey.x is missing');
    expectBadRequest(() => ingest(withKey({ ...jwk, x: 5 })), 'signedData.updateKey.x must be a string');
    expectBadRequest(
      () => ingest(withKey({ ...jwk, nonce: base64UrlEncode(Buffer.alloc(8)) })),
      'signedData.updateKey.nonce must decode to 16 bytes, got 8',
    );
    const ec = KeyPair.generate('P-256').publicJwk();
    expectBadRequest(
      () => ingest(withKey({ kty: 'EC', crv: 'P-256', x: ec.x })),
      'signedData.updateKey.y is missing (an EC key needs both coordinates)',
    );
  });

  it('accepts a nonce of the right size, which changes the reveal value', () => {
    const key = fixture.keys.update;
    const nonce = base64UrlEncode(Buffer.alloc(16, 7));
    const request = fixture.update();
    request.signedData = resign(request.signedData, key, (payload) => {
      payload.updateKey = { ...key.publicJwk(), nonce };
    });
    request.revealValue = revealValueOf({ ...key.publicJwk(), nonce });
    expect(request.revealValue).not.toBe(revealValueOf(key.publicJwk()));
    expect(signed(ingest(request)).revealValue).toBe(request.revealValue);
  });

  it('checks the anchor window against now', () => {
    expectBadRequest(
      () => ingest(fixture.update({ anchorFrom: NOW + 10, anchorUntil: NOW + 300 })),
      `operation is not valid yet: anchorFrom ${NOW + 10} is after the current time ${NOW}`,
    );
    expectBadRequest(() => ingest(fixture.update({ anchorFrom: NOW - 300, anchorUntil: NOW })), 'operation expired');
    expectBadRequest(() => ingest(fixture.update({ anchorUntil: NOW - 1 })), 'operation expired');
    expect(ingest(fixture.update({ anchorFrom: NOW - 10, anchorUntil: NOW + 300 })).type).toBe('update');
    // A lone anchorFrom stays valid for the protocol window (orb would call it expired at once).
    expect(ingest(fixture.update({ anchorFrom: NOW - 10 })).type).toBe('update');
    expectBadRequest(
      () => ingest(fixture.update({ anchorFrom: NOW - DID_NODE_PROTOCOL.anchorUntilWindow })),
      'operation expired',
    );
    expectBadRequest(() => ingest(fixture.update({ anchorFrom: -5, anchorUntil: NOW + 5 })), 'must not be negative');
    expectBadRequest(() => ingest(fixture.update({ anchorFrom: 1.5 })), 'signedData.anchorFrom must be an integer');
  });

  it('rejects a recover without anchor origin and a bad recovery commitment', () => {
    const recover = fixture.recover({ anchorOrigin: undefined });
    expectBadRequest(() => ingest(recover), 'anchor origin must be specified (signedData.anchorOrigin)');
    const bad = fixture.recover();
    bad.signedData = resign(bad.signedData, fixture.keys.recovery, (payload) => {
      payload.recoveryCommitment = 'EiAshort';
    });
    expectBadRequest(() => ingest(bad), 'signedData.recoveryCommitment is not a valid multihash');
  });

  it('rejects a deactivate whose signed suffix or reveal value does not match', () => {
    const other = requestFixture('Ed25519');
    const deactivate = fixture.deactivate();
    deactivate.signedData = resign(deactivate.signedData, fixture.keys.recovery, (payload) => {
      payload.didSuffix = other.didSuffix;
    });
    expectBadRequest(
      () => ingest(deactivate),
      `signedData.didSuffix '${other.didSuffix}' does not match didSuffix '${fixture.didSuffix}'`,
    );
    const missing = fixture.deactivate();
    missing.signedData = resign(missing.signedData, fixture.keys.recovery, (payload) => {
      delete payload.didSuffix;
    });
    expectBadRequest(() => ingest(missing), 'signedData.didSuffix is missing');
    const reveal = fixture.deactivate();
    reveal.signedData = resign(reveal.signedData, fixture.keys.recovery, (payload) => {
      payload.revealValue = revealValueOf(fixture.keys.update.publicJwk());
    });
    expectBadRequest(() => ingest(reveal), 'signedData.revealValue does not match revealValue');
    const empty = fixture.deactivate();
    empty.signedData = resign(empty.signedData, fixture.keys.recovery, (payload) => {
      payload.revealValue = '';
    });
    expect(ingest(empty).type).toBe('deactivate');
  });
});

describe('parseOperation: anchored mode reads like Orb', () => {
  const create = fixture.created.request;

  it('ignores and drops unknown members, hashing what Orb hashes', () => {
    const operation = anchored({
      ...create,
      extra: 1,
      suffixData: { ...create.suffixData, extra: 2 },
      delta: { ...create.delta, extra: 3 },
    });
    expect(operation.didSuffix).toBe(fixture.didSuffix);
    expect(operation.type === 'create' && operation.deltaProblem).toBeUndefined();
    expect(operation.canonicalRequest.toString()).toBe(canonicalize(create));
  });

  it('records an unusable delta instead of refusing the operation', () => {
    const missing = anchored({ type: 'create', suffixData: create.suffixData });
    expect(missing.type === 'create' && missing.deltaProblem).toBe('delta is missing');
    expect(missing.didSuffix).toBe(fixture.didSuffix);
    const tampered = copy(create);
    tampered.delta.patches = [addServices(service('x', 'T', 'https://x.example.com'))];
    const mismatch = anchored(tampered);
    expect(mismatch.type === 'create' && mismatch.deltaProblem).toBe('delta does not match suffixData.deltaHash');
    const invalidPatch = copy(create) as unknown as {
      delta: { patches: unknown[] };
      suffixData: { deltaHash: string };
    };
    invalidPatch.delta.patches = [{ action: 'add-services', services: [] }];
    invalidPatch.suffixData.deltaHash = hashCanonical(invalidPatch.delta);
    const invalid = anchored(invalidPatch);
    expect(invalid.type === 'create' && invalid.deltaProblem).toBe(
      'invalid patch 0 (add-services): services must not be empty',
    );
    expect(invalid.type === 'create' && invalid.nextUpdateCommitment).toBeUndefined();
  });

  it('defers the signature and the anchor window to resolution, and needs no anchor origin', () => {
    const update = fixture.update({ anchorFrom: NOW + 1000, anchorUntil: NOW + 2000 });
    const [header, payload] = update.signedData.split('.');
    const forged = { ...update, signedData: `${header}.${payload}.${base64UrlEncode(Buffer.alloc(64))}` };
    const operation = anchored(forged);
    expect(operation.type === 'update' && signatureProblem(operation)).toBe('signedData signature is invalid');
    expect(operation.type === 'update' && operation.anchorFrom).toBe(NOW + 1000);
    const unsorted = {
      ...update,
      signedData: signWithHeader('{"kid":"k","alg":"EdDSA"}', payloadOf(update.signedData), fixture.keys.update),
    };
    const parsed = anchored(unsorted);
    expect(parsed.type === 'update' && signatureProblem(parsed)).toContain('not sorted compact JSON');
    expect(anchored(fixture.recover({ anchorOrigin: undefined })).anchorOrigin).toBeUndefined();
  });

  it('still refuses what Orb refuses when reading batches', () => {
    expect(() =>
      anchored({ ...fixture.update(), revealValue: revealValueOf(fixture.keys.nextUpdate.publicJwk()) }),
    ).toThrow('revealValue does not match');
    expect(() => anchored({ ...fixture.update(), didSuffix: 5 })).toThrow('didSuffix must be a string');
    const update = fixture.update();
    const sorted = signJws(canonicalBytes(payloadOf(update.signedData)), fixture.keys.update);
    expect(anchored({ ...update, signedData: sorted }).type).toBe('update');
  });
});
