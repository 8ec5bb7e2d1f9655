import { describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { AppError } from '../errors/index.js';
import {
  didKeyFromKeyPair,
  keyPairFromDidKey,
  keyPairFromVerificationMethod,
  resolveDidKey,
  verificationMethodsFor,
} from './index.js';

// The Ed25519 example of the did:key specification, with its derived X25519 key agreement key.
const SPEC_DID = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
const SPEC_FINGERPRINT = 'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
const SPEC_X25519 = 'z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p';

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

describe('did:key', () => {
  it('resolves the spec Ed25519 example to exactly the published document', () => {
    const signing = `${SPEC_DID}#${SPEC_FINGERPRINT}`;
    expect(resolveDidKey(SPEC_DID)).toEqual({
      '@context': [
        'https://www.w3.org/ns/did/v1',
        'https://w3id.org/security/suites/ed25519-2020/v1',
        'https://w3id.org/security/suites/x25519-2020/v1',
      ],
      id: SPEC_DID,
      verificationMethod: [
        { id: signing, type: 'Ed25519VerificationKey2020', controller: SPEC_DID, publicKeyMultibase: SPEC_FINGERPRINT },
        {
          id: `${SPEC_DID}#${SPEC_X25519}`,
          type: 'X25519KeyAgreementKey2020',
          controller: SPEC_DID,
          publicKeyMultibase: SPEC_X25519,
        },
      ],
      authentication: [signing],
      assertionMethod: [signing],
      capabilityDelegation: [signing],
      capabilityInvocation: [signing],
      keyAgreement: [`${SPEC_DID}#${SPEC_X25519}`],
    });
  });

  it('decodes the published P-256 and secp256k1 examples', () => {
    const p256 = resolveDidKey('did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169');
    expect(p256.verificationMethod![0]).toEqual({
      id: 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169#zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169',
      type: 'JsonWebKey2020',
      controller: 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169',
      publicKeyJwk: {
        kty: 'EC',
        crv: 'P-256',
        x: 'fyNYMN0976ci7xqiSdag3buk-ZCwgXU4kz9XNkBlNUI',
        y: 'hW2ojTNfH7Jbi8--CJUo3OCbH3y5n91g-IMA9MLMbTU',
      },
    });
    expect(p256['@context']).toEqual(['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1']);
    expect(p256.keyAgreement).toBeUndefined();
    expect(keyPairFromDidKey('did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv').publicJwk()).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: 'igrFmi0whuihKnj9R3Om1SoMph72wUGeFaBbzG2vzns',
      y: 'efsX5b10x8yjyrj4ny3pGfLcY7Xby1KzgqOdqnsrJIM',
    });
    // Transmute's secp256k1 fixture: private key 9085d2be… is did:key:zQ3shokF…, compressed key base58 23o6Sau8….
    const secp = KeyPair.fromJwk({
      ...keyPairFromDidKey('did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme').publicJwk(),
    });
    const fromSeed = KeyPair.fromJwk({
      ...secp.publicJwk(),
      d: Buffer.from('9085d2bef69286a6cbb51623c8fa258629945cd55ca705cc4e66700396894e0c', 'hex').toString('base64url'),
    });
    expect(didKeyFromKeyPair(fromSeed)).toBe('did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme');
    expect(
      keyPairFromVerificationMethod({
        id: '#k',
        type: 'EcdsaSecp256k1VerificationKey2019',
        controller: 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme',
        publicKeyBase58: '23o6Sau8NxxzXcgSc3PLcNxrzrZpbLeBn1izfv3jbKhuv',
      }).publicKey.equals(secp.publicKey),
    ).toBe(true);
  });

  it.each(['Ed25519', 'P-256', 'P-384', 'secp256k1', 'X25519'] as const)('round-trips a generated %s key', (type) => {
    const key = KeyPair.generate(type);
    const did = didKeyFromKeyPair(key);
    expect(keyPairFromDidKey(did).publicKey.equals(key.publicKey)).toBe(true);
    const document = resolveDidKey(did);
    const purpose = type === 'X25519' ? 'keyAgreement' : 'assertionMethod';
    const [method] = verificationMethodsFor(document, purpose);
    expect(method!.id).toBe(`${did}#${did.slice('did:key:'.length)}`);
    expect(keyPairFromVerificationMethod(method!).publicKey.equals(key.publicKey)).toBe(true);
    if (type === 'X25519') expect(document.assertionMethod).toBeUndefined();
  });

  it('offers the Multikey and JsonWebKey2020 forms', () => {
    const multikey = resolveDidKey(SPEC_DID, { format: 'Multikey' });
    expect(multikey['@context']).toEqual(['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1']);
    expect(multikey.verificationMethod!.map((vm) => [vm.type, vm.publicKeyMultibase])).toEqual([
      ['Multikey', SPEC_FINGERPRINT],
      ['Multikey', SPEC_X25519],
    ]);
    const jwk = resolveDidKey(SPEC_DID, { format: 'JsonWebKey2020' });
    expect(jwk.verificationMethod!.map((vm) => vm.publicKeyJwk?.crv)).toEqual(['Ed25519', 'X25519']);
    expect(keyPairFromVerificationMethod(jwk.verificationMethod![1]!).publicKeyMultibase()).toBe(SPEC_X25519);
  });

  it('rejects DIDs that are not well-formed did:keys', () => {
    expect(errorOf(() => resolveDidKey('did:web:example.com')).message).toBe('did:web:example.com is not a did:key');
    expect(errorOf(() => resolveDidKey('did:key:uAAA')).message).toContain(
      "did:key identifiers are base58btc multibase ('z...')",
    );
    expect(errorOf(() => resolveDidKey('did:key:z6Mk')).message).toContain('multikey');
    expect(errorOf(() => resolveDidKey('did:key:zQ3sh')).code).toBe('bad_request');
    expect(errorOf(() => resolveDidKey('did:key:z0OIl')).message).toContain('invalid publicKeyMultibase');
    expect(errorOf(() => resolveDidKey('not a did')).code).toBe('bad_request');
  });
});
