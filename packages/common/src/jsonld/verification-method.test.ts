import { describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { AppError } from '../errors/index.js';
import { controllerDocumentResolver, verificationMethodsOf } from './verification-method.js';

const ed = KeyPair.fromSeed('Ed25519', Buffer.alloc(32, 3));
const p256 = KeyPair.generate('P-256');
const DID = 'did:web:example.com';

describe('verificationMethodsOf', () => {
  it('reads every key encoding and the relationships that list each method', () => {
    const methods = verificationMethodsOf({
      id: DID,
      verificationMethod: [
        {
          id: '#multibase',
          type: 'Ed25519VerificationKey2020',
          controller: DID,
          publicKeyMultibase: ed.publicKeyMultibase(),
        },
        {
          id: `${DID}#base58`,
          type: 'Ed25519VerificationKey2018',
          controller: DID,
          publicKeyBase58: ed.publicKeyBase58(),
        },
        { id: '#jwk', type: 'JsonWebKey2020', controller: 'did:example:delegate', publicKeyJwk: p256.publicJwk() },
      ],
      assertionMethod: ['#multibase', `${DID}#jwk`],
      authentication: [
        `${DID}#multibase`,
        { id: '#embedded', type: 'Ed25519VerificationKey2020', publicKeyMultibase: ed.publicKeyMultibase() },
      ],
    });
    expect(methods.map(({ id, controller, key, purposes }) => ({ id, controller, type: key.type, purposes }))).toEqual([
      { id: `${DID}#multibase`, controller: DID, type: 'Ed25519', purposes: ['assertionMethod', 'authentication'] },
      { id: `${DID}#base58`, controller: DID, type: 'Ed25519', purposes: [] },
      { id: `${DID}#jwk`, controller: 'did:example:delegate', type: 'P-256', purposes: ['assertionMethod'] },
      { id: `${DID}#embedded`, controller: DID, type: 'Ed25519', purposes: ['authentication'] },
    ]);
    expect(methods[0]?.key.publicKeyBytes()).toEqual(ed.publicKeyBytes());
    expect(methods[2]?.key.publicJwk()).toEqual(p256.publicJwk());
  });

  it.each<[string, unknown, RegExp]>([
    ['a document without an id', { verificationMethod: [] }, /string id/],
    ['a non-array verificationMethod', { id: DID, verificationMethod: {} }, /verificationMethod must be an array/],
    [
      'a method without an id',
      { id: DID, verificationMethod: [{ publicKeyMultibase: ed.publicKeyMultibase() }] },
      /needs a string id/,
    ],
    [
      'a relationship naming an undeclared method',
      { id: DID, assertionMethod: ['#nowhere'] },
      /references did:web:example.com#nowhere, which it does not declare/,
    ],
    [
      'a method without key material',
      { id: DID, verificationMethod: [{ id: '#k', type: 'Ed25519VerificationKey2020' }] },
      /has no publicKeyMultibase, publicKeyJwk or publicKeyBase58/,
    ],
    [
      'an undecodable multibase key',
      { id: DID, verificationMethod: [{ id: '#k', publicKeyMultibase: 'z0OIl' }] },
      /verification method did:web:example.com#k/,
    ],
    [
      'base58 for an unknown key type',
      { id: DID, verificationMethod: [{ id: '#k', type: 'RsaVerificationKey2018', publicKeyBase58: 'abc' }] },
      /not supported for type RsaVerificationKey2018/,
    ],
    [
      'an unsupported JWK',
      { id: DID, verificationMethod: [{ id: '#k', publicKeyJwk: { kty: 'RSA', n: 'x', e: 'AQAB' } }] },
      /unsupported JWK kty/,
    ],
    [
      'a non-string controller',
      { id: DID, verificationMethod: [{ id: '#k', controller: 42, publicKeyMultibase: ed.publicKeyMultibase() }] },
      /controller must be a string/,
    ],
  ])('rejects %s with a bad_request', (_name, document, message) => {
    let error: unknown;
    try {
      verificationMethodsOf(document as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
    expect((error as AppError).message).toMatch(message);
  });
});

describe('controllerDocumentResolver', () => {
  it('resolves methods of several documents by absolute id, and nothing else', async () => {
    const resolve = controllerDocumentResolver([
      {
        id: DID,
        verificationMethod: [{ id: '#a', publicKeyMultibase: ed.publicKeyMultibase() }],
        assertionMethod: ['#a'],
      },
      { id: 'did:example:2', verificationMethod: [{ id: 'did:example:2#b', publicKeyJwk: p256.publicJwk() }] },
    ]);
    expect(await resolve(`${DID}#a`)).toMatchObject({ id: `${DID}#a`, controller: DID, purposes: ['assertionMethod'] });
    expect((await resolve('did:example:2#b'))?.key.type).toBe('P-256');
    expect(await resolve('#a')).toBeUndefined();
    expect(await resolve('did:example:2#a')).toBeUndefined();
  });
});
