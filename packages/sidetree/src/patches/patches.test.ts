import { KeyPair } from '@anchor/common/crypto';
import { describe, expect, it } from 'vitest';
import type { ParseMode } from '../operations/parse-mode.js';
import { DID_NODE_PROTOCOL, DIF_PROTOCOL } from '../protocol.js';
import { expectBadRequest } from '../testing/assertions.test-helpers.js';
import { applyPatches } from './apply-patches.js';
import { EMPTY_DOCUMENT, type Patch, type PublicKeyEntry, type ServiceEntry } from './types.js';
import { validatePatch } from './validate-patch.js';

const ed25519 = KeyPair.generate('Ed25519').publicJwk();
const p256 = KeyPair.generate('P-256').publicJwk();
const x25519 = KeyPair.generate('X25519').publicJwk();
const key = (overrides: Record<string, unknown> = {}) => ({
  id: 'k1',
  type: 'JsonWebKey2020',
  purposes: ['authentication'],
  publicKeyJwk: p256,
  ...overrides,
});
const svc = (overrides: Record<string, unknown> = {}) => ({
  id: 's1',
  type: 'LinkedDomains',
  serviceEndpoint: 'https://example.com',
  ...overrides,
});
const check = (patch: unknown, mode: ParseMode = 'ingest', protocol = DID_NODE_PROTOCOL) =>
  validatePatch(patch, 0, protocol, mode);
const addKeys = (...publicKeys: unknown[]) => ({ action: 'add-public-keys', publicKeys });
const addServices = (...services: unknown[]) => ({ action: 'add-services', services });

describe('validatePatch: structure and actions', () => {
  it('needs an object with a known, enabled action', () => {
    expectBadRequest(() => check('add'), 'invalid patch 0: a patch must be a JSON object');
    expectBadRequest(() => check({ publicKeys: [] }), 'invalid patch 0: action must be a string');
    expectBadRequest(() => check({ action: 'add-public-key' }), "action 'add-public-key' is not a known patch action");
    expectBadRequest(
      () => check({ action: 'replace', document: {} }),
      "action 'replace' is not enabled by did:node v1.0",
    );
    expectBadRequest(
      () => check({ action: 'add-also-known-as', uris: ['https://a.example'] }, 'ingest', DIF_PROTOCOL),
      "action 'add-also-known-as' is not enabled by DIF Sidetree v1",
    );
    expect(validatePatch({ action: 'replace', document: {} }, 3, DIF_PROTOCOL, 'ingest')).toEqual({
      action: 'replace',
      document: {},
    });
  });

  it('rejects unknown patch members at ingest and ignores them in anchored data', () => {
    const patch = { ...addKeys(key()), note: 'x' };
    expectBadRequest(() => check(patch), "invalid patch 0 (add-public-keys): patch has unknown member 'note'");
    expect(check(patch, 'anchored')).toBe(patch);
  });
});

describe('validatePatch: add-public-keys', () => {
  const fails = (entry: unknown, message: string, mode: ParseMode = 'ingest') =>
    expectBadRequest(() => check(addKeys(entry), mode), message);

  it('names the patch in every message', () => {
    expectBadRequest(
      () => check(addKeys(key({ id: '' }))),
      'invalid patch 0 (add-public-keys): public key id must not be empty',
    );
    expectBadRequest(
      () => validatePatch(addKeys(key({ id: '' })), 4, DID_NODE_PROTOCOL, 'ingest'),
      'invalid patch 4 (add-public-keys)',
    );
  });

  it('accepts JWK and base58 keys, with or without purposes', () => {
    expect(check(addKeys(key(), key({ id: 'k2', purposes: undefined })))).toBeTruthy();
    expect(
      check(
        addKeys({
          id: 'b58',
          type: 'Ed25519VerificationKey2018',
          publicKeyBase58: 'H3C2AVvLMv6gmMNam3uVAjZpfkcJCwDwnZn6z3wXmqPV',
        }),
      ),
    ).toBeTruthy();
    expect(
      check(addKeys(key({ type: 'X25519KeyAgreementKey2019', publicKeyJwk: x25519, purposes: ['keyAgreement'] }))),
    ).toBeTruthy();
    // Orb vectors carry "crv":"P-256K" with placeholder coordinates: anchored operations of Orb nodes keep
    // resolving; at ingest a key must be usable (secp256k1 under its old name included).
    const placeholder = addKeys(key({ publicKeyJwk: { kty: 'EC', crv: 'P-256K', x: 'abc', y: 'def' } }));
    expect(check(placeholder, 'anchored')).toBeTruthy();
    expectBadRequest(() => check(placeholder), "public key 'k1' publicKeyJwk.x must be 32 bytes for P-256K, not 2");
    const secp = KeyPair.generate('secp256k1').publicJwk();
    expect(check(addKeys(key({ publicKeyJwk: { ...secp, crv: 'P-256K' } })))).toBeTruthy();
  });

  it('checks the list and the ids', () => {
    expectBadRequest(() => check({ action: 'add-public-keys', publicKeys: {} }), 'publicKeys must be an array');
    expectBadRequest(() => check(addKeys()), 'publicKeys must not be empty');
    fails('k1', 'each public key must be a JSON object');
    fails(key({ id: 7 }), 'public key id must be a string');
    fails(key({ id: '' }), 'public key id must not be empty');
    fails(key({ id: 'a'.repeat(51) }), 'is too long: 51 characters exceeds 50');
    fails(key({ id: 'key#1' }), "public key id 'key#1' contains characters outside [A-Za-z0-9_-]");
    expectBadRequest(() => check(addKeys(key(), key())), "public key id 'k1' appears more than once");
    expect(check(addKeys(key({ id: 'a'.repeat(50) })))).toBeTruthy();
  });

  it('checks members, type and purposes', () => {
    fails(key({ controller: 'did:example:1' }), "public key 'k1' has unknown member 'controller'");
    fails(key({ publicKeyMultibase: 'z6Mk' }), "public key 'k1' has unknown member 'publicKeyMultibase'");
    fails(key({ type: undefined }), "public key 'k1' type must be a non-empty string");
    fails(
      key({ type: 'RsaVerificationKey2018', purposes: undefined }),
      "type 'RsaVerificationKey2018' is not supported",
    );
    fails(
      key({ type: 'X25519KeyAgreementKey2019', publicKeyJwk: x25519 }),
      "type 'X25519KeyAgreementKey2019' cannot be used for authentication",
    );
    fails(
      key({ type: 'Ed25519VerificationKey2018', publicKeyJwk: ed25519, purposes: ['keyAgreement'] }),
      "type 'Ed25519VerificationKey2018' cannot be used for keyAgreement",
    );
    fails(key({ purposes: 'authentication' }), "public key 'k1' purposes must be an array");
    fails(key({ purposes: [] }), "public key 'k1' purposes must not be empty when present");
    fails(key({ purposes: ['signing'] }), "purpose 'signing' is not one of authentication");
    fails(
      key({
        purposes: [
          'authentication',
          'assertionMethod',
          'keyAgreement',
          'capabilityDelegation',
          'capabilityInvocation',
          'authentication',
        ],
      }),
      'has 6 purposes; at most 5 exist',
    );
    fails(key({ purposes: ['authentication', 'authentication'] }), "public key 'k1' lists a purpose more than once");
    expect(check(addKeys(key({ purposes: ['authentication', 'authentication'] })), 'anchored')).toBeTruthy();
  });

  it('checks the key material', () => {
    fails(key({ publicKeyJwk: undefined }), 'must have exactly one of publicKeyJwk and publicKeyBase58');
    fails(key({ publicKeyBase58: 'abc' }), 'must have exactly one of publicKeyJwk and publicKeyBase58');
    fails(key({ publicKeyJwk: 'jwk' }), "public key 'k1' publicKeyJwk must be a JSON object");
    fails(key({ publicKeyJwk: { crv: 'P-256', x: 'a' } }), "public key 'k1' publicKeyJwk.kty is missing");
    fails(key({ publicKeyJwk: { kty: 'EC', x: 'a' } }), "public key 'k1' publicKeyJwk.crv is missing");
    fails(key({ publicKeyJwk: { kty: 'EC', crv: 'P-256' } }), "public key 'k1' publicKeyJwk.x is missing");
    fails(key({ publicKeyJwk: { kty: 'RSA', n: 'abc' } }), 'RSA publicKeyJwk needs n and e');
    fails(key({ publicKeyJwk: { ...p256, d: 'secret' } }), 'publicKeyJwk must not carry the private member d');
    fails(
      key({ type: 'Ed25519VerificationKey2018', publicKeyJwk: p256 }),
      'of type Ed25519VerificationKey2018 needs an OKP Ed25519 publicKeyJwk with a 32-byte x',
    );
    fails(
      key({ type: 'Ed25519VerificationKey2020', publicKeyJwk: { ...ed25519, x: 'AAAA' } }),
      'needs an OKP Ed25519 publicKeyJwk with a 32-byte x',
    );
    fails(
      { id: 'b', type: 'Ed25519VerificationKey2018', publicKeyBase58: '' },
      "public key 'b' publicKeyBase58 must be a non-empty string",
    );
    fails(
      { id: 'b', type: 'Ed25519VerificationKey2018', publicKeyBase58: '0OIl' },
      "public key 'b' publicKeyBase58 is not valid base58",
    );
  });
});

describe('validatePatch: services, also-known-as, removals, replace', () => {
  const fails = (patch: unknown, message: string, mode: ParseMode = 'ingest') =>
    expectBadRequest(() => check(patch, mode), message);

  it('checks services and keeps their extra members', () => {
    const extra = svc({ priority: 0, recipientKeys: ['did:key:z6Mk'], routingKeys: [] });
    expect(check(addServices(extra))).toEqual(addServices(extra));
    expect(
      check(addServices(svc({ serviceEndpoint: ['https://a.example', { uri: 'https://b.example' }] }))),
    ).toBeTruthy();
    expect(check(addServices(svc({ serviceEndpoint: { origins: ['https://a.example'] } })))).toBeTruthy();
    expect(check(addServices(svc({ serviceEndpoint: 'did:example:123' })))).toBeTruthy();
    fails({ action: 'add-services' }, 'services must be an array');
    fails(addServices(), 'services must not be empty');
    fails(addServices(svc(), svc()), "service id 's1' appears more than once");
    fails(addServices(svc({ id: 'a b' })), "service id 'a b' contains characters outside [A-Za-z0-9_-]");
    fails(addServices(svc({ type: '' })), "service 's1' type must be a non-empty string");
    fails(addServices(svc({ type: 'T'.repeat(31) })), "service 's1' type is too long: 31 characters exceeds 30");
    fails(addServices(svc({ serviceEndpoint: undefined })), "service 's1' serviceEndpoint is missing");
    fails(
      addServices(svc({ serviceEndpoint: 'not a uri' })),
      "service 's1' serviceEndpoint 'not a uri' is not a valid absolute URI",
    );
    fails(
      addServices(svc({ serviceEndpoint: '/relative' })),
      "serviceEndpoint '/relative' is not a valid absolute URI",
    );
    fails(addServices(svc({ serviceEndpoint: [] })), 'serviceEndpoint must not be an empty array');
    fails(
      addServices(svc({ serviceEndpoint: ['https://a.example', 5] })),
      'serviceEndpoint array elements must be URI strings or JSON objects',
    );
    fails(addServices(svc({ serviceEndpoint: 5 })), 'serviceEndpoint must be a URI string, an array or a JSON object');
    // Anchored data is judged like Go's url.ParseRequestURI: absolute paths pass, only the first string of a mixed array counts.
    expect(check(addServices(svc({ serviceEndpoint: '/relative' })), 'anchored')).toBeTruthy();
    expect(
      check(addServices(svc({ serviceEndpoint: [{ a: 1 }, 'https://a.example', 'bad uri'] })), 'anchored'),
    ).toBeTruthy();
    fails(addServices(svc({ serviceEndpoint: 'bad uri' })), "serviceEndpoint 'bad uri' is not a valid URI", 'anchored');
  });

  it('checks also-known-as URIs', () => {
    expect(check({ action: 'add-also-known-as', uris: ['https://a.example', 'did:web:b.example'] })).toBeTruthy();
    fails({ action: 'add-also-known-as', uris: 'https://a.example' }, 'uris must be an array');
    fails(
      { action: 'remove-also-known-as', uris: [] },
      'invalid patch 0 (remove-also-known-as): uris must not be empty',
    );
    fails({ action: 'add-also-known-as', uris: [1] }, 'uris must contain only strings');
    fails({ action: 'add-also-known-as', uris: ['no scheme'] }, "uri 'no scheme' is not a valid absolute URI");
    fails(
      { action: 'add-also-known-as', uris: ['https://a.example', 'https://a.example'] },
      "uri 'https://a.example' appears more than once",
    );
  });

  it('checks removal ids', () => {
    expect(check({ action: 'remove-public-keys', ids: ['k1', 'k2'] })).toBeTruthy();
    fails({ action: 'remove-public-keys', ids: 'k1' }, 'invalid patch 0 (remove-public-keys): ids must be an array');
    fails({ action: 'remove-services', ids: [] }, 'invalid patch 0 (remove-services): ids must not be empty');
    fails({ action: 'remove-services', ids: ['ok', 'not ok'] }, "service id 'not ok' contains characters outside");
  });

  it('checks replace documents (DIF profile)', () => {
    const replace = (document: unknown) => validatePatch({ action: 'replace', document }, 0, DIF_PROTOCOL, 'ingest');
    expect(replace({ publicKeys: [], services: [] })).toBeTruthy();
    expectBadRequest(() => replace('doc'), 'invalid patch 0 (replace): document must be a JSON object');
    expectBadRequest(() => replace({ publicKeys: [], alsoKnownAs: [] }), "document has unknown member 'alsoKnownAs'");
    expectBadRequest(() => replace({ publicKeys: [key(), key()] }), "public key id 'k1' appears more than once");
    expectBadRequest(
      () => replace({ services: [svc({ serviceEndpoint: 'nope' })] }),
      "serviceEndpoint 'nope' is not a valid absolute URI",
    );
  });
});

describe('applyPatches', () => {
  const k = (id: string, x = id): PublicKeyEntry => ({
    id,
    type: 'JsonWebKey2020',
    publicKeyJwk: { kty: 'EC', crv: 'P-256', x, y: x },
  });
  const s = (id: string, serviceEndpoint = `https://${id}.example`): ServiceEntry => ({
    id,
    type: 'T',
    serviceEndpoint,
  });

  it('upserts keys and services by id in place, appends new ones, ignores unknown removals', () => {
    const start = applyPatches(EMPTY_DOCUMENT, [
      { action: 'add-public-keys', publicKeys: [k('a'), k('b')] },
      { action: 'add-services', services: [s('one'), s('two')] },
    ]);
    const next = applyPatches(start, [
      { action: 'add-public-keys', publicKeys: [k('a', 'replaced'), k('c')] },
      { action: 'remove-public-keys', ids: ['b', 'missing'] },
      { action: 'add-services', services: [s('one', 'https://new.example')] },
      { action: 'remove-services', ids: ['two', 'missing'] },
    ]);
    expect(next.publicKeys).toEqual([k('a', 'replaced'), k('c')]);
    expect(next.services).toEqual([s('one', 'https://new.example')]);
    // The input document is never modified.
    expect(start.publicKeys).toEqual([k('a'), k('b')]);
    expect(EMPTY_DOCUMENT.publicKeys).toEqual([]);
  });

  it('adds also-known-as URIs once, in order, and removes them', () => {
    const document = applyPatches(EMPTY_DOCUMENT, [
      { action: 'add-also-known-as', uris: ['https://a.example', 'https://b.example'] },
      { action: 'add-also-known-as', uris: ['https://b.example', 'https://c.example'] },
      { action: 'remove-also-known-as', uris: ['https://a.example', 'https://z.example'] },
    ]);
    expect(document.alsoKnownAs).toEqual(['https://b.example', 'https://c.example']);
  });

  it('replace resets the document to exactly the given keys and services', () => {
    const before = applyPatches(EMPTY_DOCUMENT, [
      { action: 'add-public-keys', publicKeys: [k('a')] },
      { action: 'add-also-known-as', uris: ['https://a.example'] },
    ]);
    const patches: Patch[] = [{ action: 'replace', document: { services: [s('only')] } }];
    expect(applyPatches(before, patches)).toEqual({ publicKeys: [], services: [s('only')], alsoKnownAs: [] });
  });
});
