import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KeyPair, signJws, verifyJws } from '../crypto/index.js';
import { AppError } from '../errors/index.js';
import {
  type DidDocument,
  type DidResolutionResult,
  DidResolverRegistry,
  createDidResolver,
  didKeyFromKeyPair,
  findService,
  findVerificationMethod,
  keyPairFromVerificationMethod,
  verificationMethodsFor,
} from './index.js';

const RESOLUTION = '/work/shared/vectors/sidetree-dif/resolution';
const afterUpdate = JSON.parse(readFileSync(`${RESOLUTION}/afterUpdate.json`, 'utf8')) as DidResolutionResult;
const longForm = JSON.parse(
  readFileSync(`${RESOLUTION}/longFormResponseDidDocument.json`, 'utf8'),
) as DidResolutionResult;
const SHORT = 'did:sidetree:EiDyOQbbZAa3aiRzeCkV7LOx3SERjjH93EXoIM3UoN4oWg';
const MODEL1_X = 'tXSKB_rubXS7sCjXqupVJEzTcW3MsjmEvq1YpXn96Zg';
const ADDITIONAL_X = 'aN75CTjy3VCgGAJDNJHbcb55hO8CobEKzgCNrUeOwAY';

async function errorOf(work: Promise<unknown> | (() => unknown)): Promise<AppError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

describe('verification methods in a Sidetree-rendered document (relative ids)', () => {
  const document = afterUpdate.didDocument;

  it('lists the methods of each relationship in document order', () => {
    const x = (purpose: Parameters<typeof verificationMethodsFor>[1]): unknown[] =>
      verificationMethodsFor(document, purpose).map((vm) => vm.publicKeyJwk?.x);
    expect(x('authentication')).toEqual([MODEL1_X, ADDITIONAL_X]);
    expect(x('keyAgreement')).toEqual([MODEL1_X, ADDITIONAL_X]);
    expect(x('assertionMethod')).toEqual([ADDITIONAL_X]);
    expect(x('capabilityDelegation')).toEqual([ADDITIONAL_X]);
  });

  it('finds a method by relative or absolute id, and checks the purpose', () => {
    expect(findVerificationMethod(document, '#publicKeyModel1Id').publicKeyJwk!.x).toBe(MODEL1_X);
    expect(
      findVerificationMethod(document, `${SHORT}#additional-key`, { purpose: 'assertionMethod' }).publicKeyJwk!.x,
    ).toBe(ADDITIONAL_X);
    expect(keyPairFromVerificationMethod(findVerificationMethod(document, '#publicKeyModel1Id')).publicJwk().x).toBe(
      MODEL1_X,
    );
  });

  it('answers not_found for unknown keys and for keys not authorized for the purpose', async () => {
    const unauthorized = await errorOf(() =>
      findVerificationMethod(document, '#publicKeyModel1Id', { purpose: 'assertionMethod' }),
    );
    expect([unauthorized.code, unauthorized.message]).toEqual([
      'not_found',
      `verification method #publicKeyModel1Id is not authorized for assertionMethod in ${SHORT}`,
    ]);
    const unknown = await errorOf(() => findVerificationMethod(document, '#nope'));
    expect([unknown.code, unknown.message]).toEqual(['not_found', `verification method #nope not found in ${SHORT}`]);
    // The same fragment under another DID is another key.
    expect((await errorOf(() => findVerificationMethod(document, 'did:sidetree:other#additional-key'))).code).toBe(
      'not_found',
    );
    expect((await errorOf(() => findVerificationMethod(document, ''))).code).toBe('bad_request');
  });

  it('finds services by relative or absolute id', async () => {
    expect(findService(document, '#service1Id').serviceEndpoint).toBe('http://www.service1.com');
    expect(findService(document, `${SHORT}#service1Id`).type).toBe('service1Type');
    expect((await errorOf(() => findService(document, '#publicKeyModel1Id'))).code).toBe('not_found');
  });
});

describe('verification methods: embedded, base58, and bad key material', () => {
  const ed = KeyPair.generate('Ed25519');
  const did = 'did:example:123';
  const document: DidDocument = {
    id: did,
    verificationMethod: [
      {
        id: `${did}#listed`,
        type: 'Ed25519VerificationKey2018',
        controller: did,
        publicKeyBase58: ed.publicKeyBase58(),
      },
    ],
    authentication: [
      `${did}#listed`,
      {
        id: '#embedded',
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: KeyPair.generate('P-256').publicKeyMultibase(),
      },
      'did:example:other#key', // lives in another document: not listed here
      '#dangling',
    ],
  };

  it('includes embedded methods, resolves references, leaves out what it cannot dereference', () => {
    expect(verificationMethodsFor(document, 'authentication').map((vm) => vm.id)).toEqual([
      `${did}#listed`,
      '#embedded',
    ]);
    expect(
      keyPairFromVerificationMethod(findVerificationMethod(document, '#embedded', { purpose: 'authentication' })).type,
    ).toBe('P-256');
    expect(
      keyPairFromVerificationMethod(findVerificationMethod(document, '#listed')).publicKey.equals(ed.publicKey),
    ).toBe(true);
    expect(verificationMethodsFor(document, 'keyAgreement')).toEqual([]);
  });

  it('serves repeated multibase keys from a cache', () => {
    const method = findVerificationMethod(document, '#embedded');
    expect(keyPairFromVerificationMethod(method)).toBe(keyPairFromVerificationMethod({ ...method }));
  });

  it('rejects key material that does not fit the method', async () => {
    const base = { id: '#k', controller: did };
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          ...base,
          type: 'Ed25519VerificationKey2020',
          publicKeyMultibase: KeyPair.generate('P-256').publicKeyMultibase(),
        },
        'of type Ed25519VerificationKey2020 holds a P-256 key',
      ],
      [
        { ...base, type: 'JsonWebKey2020', publicKeyJwk: KeyPair.generate('P-256').privateJwk() },
        'publicKeyJwk of #k carries a private key',
      ],
      [
        { ...base, type: 'JsonWebKey2020', publicKeyJwk: ed.publicJwk(), privateKeyBase58: 'abc' },
        'carries a private key',
      ],
      [
        { ...base, type: 'JsonWebKey2020' },
        'must carry exactly one of publicKeyJwk, publicKeyMultibase, publicKeyBase58',
      ],
      [
        { ...base, type: 'JsonWebKey2020', publicKeyJwk: ed.publicJwk(), publicKeyBase58: ed.publicKeyBase58() },
        'exactly one of',
      ],
      [
        { ...base, type: 'Multikey', publicKeyBase58: ed.publicKeyBase58() },
        'cannot tell the key type of publicKeyBase58 in a Multikey',
      ],
      [
        { ...base, type: 'Ed25519VerificationKey2018', publicKeyBase58: '0OIl' },
        'publicKeyBase58 of #k is not base58btc',
      ],
      [{ ...base, type: 'Ed25519VerificationKey2018', publicKeyBase58: 'abc' }, 'Ed25519 public key must be 32 bytes'],
      [{ ...base, type: 'JsonWebKey2020', publicKeyJwk: 'not a jwk' }, 'publicKeyJwk of #k must be an object'],
      [
        { ...base, type: 'JsonWebKey2020', publicKeyJwk: { kty: 'RSA', n: 'x', e: 'AQAB' } },
        "unsupported JWK kty 'RSA'",
      ],
      [{ ...base, type: 'Multikey', publicKeyMultibase: 7 }, 'publicKeyMultibase of #k must be a string'],
    ];
    for (const [method, message] of cases) {
      const error = await errorOf(() => keyPairFromVerificationMethod(method as never));
      expect([error.code, error.message], message).toEqual(['bad_request', expect.stringContaining(message)]);
    }
  });
});

describe('DidResolverRegistry', () => {
  /** A did:sidetree resolver over the DIF resolution vectors, standing in for the node's own resolver. */
  const sidetree = {
    resolve: async (did: string): Promise<DidResolutionResult> => {
      if (did === SHORT) return afterUpdate;
      if (did === longForm.didDocument.id) return longForm;
      throw new AppError('not_found', `${did} not found`);
    },
  };
  const registry = createDidResolver().register('sidetree', sidetree);

  it('resolves did:key offline and finds its keys by purpose', async () => {
    const key = KeyPair.generate('Ed25519');
    const did = didKeyFromKeyPair(key);
    const resolved = await registry.resolveVerificationMethod(`${did}#${did.slice(8)}`, 'assertionMethod');
    expect(resolved.key.publicKey.equals(key.publicKey)).toBe(true);
    expect(resolved.document.id).toBe(did);
    const jws = signJws('hello', key);
    expect(verifyJws(jws, resolved.key).payload.toString()).toBe('hello');
    const agreement = await registry.dereference(
      `${did}#${resolved.document.keyAgreement![0]!.toString().split('#')[1]!}`,
    );
    expect((agreement as { type: string }).type).toBe('X25519KeyAgreementKey2020');
    expect(((await registry.dereference(did)) as DidDocument).id).toBe(did);
  });

  it('plugs in another method and dereferences its relative ids, services included', async () => {
    const method = await registry.resolveVerificationMethod(`${SHORT}#additional-key`, 'capabilityInvocation');
    expect(method.key.publicJwk().x).toBe(ADDITIONAL_X);
    expect(await registry.dereference(`${SHORT}#service1Id`)).toMatchObject({
      serviceEndpoint: 'http://www.service1.com',
    });
    expect((await errorOf(registry.dereference(`${SHORT}#nothing`))).message).toBe(
      `${SHORT}#nothing names neither a verification method nor a service of ${SHORT}`,
    );
    expect(registry.methods()).toEqual(['key', 'web', 'sidetree']);
  });

  it('accepts a short-form key reference into a long-form document through equivalentId', async () => {
    const longDid = longForm.didDocument.id;
    expect(
      (await registry.resolveVerificationMethod(`${longDid}#publicKeyModel1Id`, 'authentication')).key.publicJwk().x,
    ).toBe(MODEL1_X);
    const aliased = new DidResolverRegistry().register('sidetree', { resolve: async () => longForm });
    expect(
      (await aliased.resolveVerificationMethod(`${SHORT}#publicKeyModel1Id`, 'keyAgreement')).key.publicJwk().x,
    ).toBe(MODEL1_X);
  });

  it('refuses the keys of a deactivated DID', async () => {
    const deactivated = new DidResolverRegistry().register('sidetree', {
      resolve: async () => ({ ...afterUpdate, didDocumentMetadata: { deactivated: true } }),
    });
    const error = await errorOf(deactivated.resolveVerificationMethod(`${SHORT}#additional-key`));
    expect([error.code, error.message]).toEqual(['not_found', `${SHORT} is deactivated`]);
  });

  it('answers bad_request for malformed input and unsupported methods, not_found for unknown DIDs and keys', async () => {
    expect((await errorOf(registry.resolve('did:example:123'))).message).toBe(
      "DID method 'example' is not supported (supported: key, web, sidetree)",
    );
    expect((await errorOf(registry.resolve('did:sidetree:EiUnknown'))).code).toBe('not_found');
    expect((await errorOf(registry.resolve(`${SHORT}#key`))).code).toBe('bad_request');
    expect((await errorOf(registry.resolveVerificationMethod(SHORT))).message).toContain('no #fragment');
    expect(
      (await errorOf(registry.resolveVerificationMethod(`${SHORT}#publicKeyModel1Id`, 'assertionMethod'))).code,
    ).toBe('not_found');
    expect((await errorOf(registry.dereference('did:key:nope#x'))).code).toBe('bad_request');
    expect(() => registry.register('Bad-Name', sidetree)).toThrow("invalid DID method name 'Bad-Name'");
  });
});
