import { verifyJws, type Jwk } from '@anchor/common/crypto';
import { base64UrlEncode, canonicalize } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { parseSidetreeDid } from './did/parse-sidetree-did.js';
import { commitmentOfBytes, hashCanonical } from './hashing.js';
import { commitmentOf, revealValueOf } from './keys/signing-key.js';
import { parseOperation } from './operations/parse-operation.js';
import type { CreateOperation, ParsedOperation, RecoverOperation, UpdateOperation } from './operations/types.js';
import { DIF_PROTOCOL } from './protocol.js';
import { renderIonResolution } from './render/ion-resolution.js';
import { resolveOperations } from './resolution/resolve-operations.js';
import type { PublishedOperationRecord } from './resolution/types.js';
import { difVector, difVectorBytes } from './testing/vectors.test-helpers.js';

/** Every value of the DIF Sidetree v1 vector set (sidetree.md §5.2), with the DIF profile and ION rendering. */
const SUFFIX = 'EiDyOQbbZAa3aiRzeCkV7LOx3SERjjH93EXoIM3UoN4oWg';
const SHORT_FORM = `did:sidetree:${SUFFIX}`;
const jwk1 = difVector<Jwk>('inputs/jwkEs256k1Public.json');
const jwk2 = difVector<Jwk>('inputs/jwkEs256k2Public.json');
const generated = difVector<{
  recover: { signingPublicKey: { publicKeyJwk: Jwk } };
  update: { additionalPublicKey?: unknown };
}>('generated.json');
const jmnp: Jwk = {
  kty: 'EC',
  crv: 'secp256k1',
  x: 'JMnp_J9nAHadLjI6b_5U73UpHFjHFSTwmsVTPoEM5l0',
  y: 'wsT1-stQboJWOxBrRuH4t0U_s_YRC-xYt2FADUCGGc8',
};

function parseVector<T extends ParsedOperation>(name: string): T {
  return parseOperation(difVectorBytes(`operations/${name}Operation.json`), { protocol: DIF_PROTOCOL }) as T;
}

function anchored(operation: ParsedOperation, time: number): PublishedOperationRecord {
  return {
    operation,
    anchor: { canonicalReference: `anchor-${time}`, transactionTime: time, transactionNumber: time },
  };
}

describe('DIF vectors: keys, commitments and reveal values', () => {
  it('computes the commitments and reveal values of the vector keys', () => {
    expect(canonicalize(jwk1)).toBe(
      '{"crv":"secp256k1","kty":"EC","x":"nIqlRCx0eyBSXcQnqDpReSv4zuWhwCRWssoc9L_nj6A","y":"iG29VK6l2U5sKBZUSJePvyFusXgSlK2dDFlWaCM8F7k"}',
    );
    expect(revealValueOf(jwk1)).toBe('EiAJ-97Is59is6FKAProwDo870nmwCeP8n5nRRFwPpUZVQ');
    expect(commitmentOf(jwk1)).toBe('EiBfOZdMtU6OBw8Pk879QtZ-2J-9FbbjSZyoaA_bqD4zhA');
    expect(revealValueOf(jwk2)).toBe('EiBkRSeixqX-PhOij6PIpuGfPld5Nif5MxcrgtGCw-t6LA');
    expect(commitmentOf(jwk2)).toBe('EiDKIkwqO69IPG3pOlHkdb86nYt0aNxSHZu2r-bhEznjdA');
    expect(revealValueOf(jmnp)).toBe('EiB-dib5oumdaDGH47TB17Qg1nHza036bTIGibQOKFUY2A');
    expect(commitmentOf(jmnp)).toBe('EiCsA7SGLNeda5InloqnokUcJFz6vKT4HS5dcKrmnlJhpA');
    expect(commitmentOf(generated.recover.signingPublicKey.publicKeyJwk)).toBe(
      'EiD6_csybTfxELBoMgkE9O2BTCmhScG_RW_qaZQkIkJ_aQ',
    );
  });

  it('reproduces the generator quirk: the update vector commits to a whole public key model', () => {
    const model = {
      id: 'additional-key',
      type: 'EcdsaSecp256k1VerificationKey2019',
      publicKeyJwk: {
        kty: 'EC',
        crv: 'secp256k1',
        x: 'aN75CTjy3VCgGAJDNJHbcb55hO8CobEKzgCNrUeOwAY',
        y: 'K9FhCEpa_jG09pB6qriXrgSvKzXm6xtxBvZzIoXXWm4',
      },
      purposes: ['authentication', 'assertionMethod', 'capabilityInvocation', 'capabilityDelegation', 'keyAgreement'],
    };
    expect(commitmentOfBytes(canonicalize(model))).toBe('EiDOrcmPtfMHuwIWN6YoihdeIPxOKDHy3D6sdMXu_7CN0w');
  });
});

describe('DIF vectors: operations', () => {
  it('create: delta, delta hash, suffix data, suffix, short and long form byte-exact', () => {
    const create = parseVector<CreateOperation>('create');
    expect(canonicalize(create.delta)).toBe(
      '{"patches":[{"action":"replace","document":{"publicKeys":[{"id":"publicKeyModel1Id","publicKeyJwk":{"crv":"secp256k1","kty":"EC","x":"tXSKB_rubXS7sCjXqupVJEzTcW3MsjmEvq1YpXn96Zg","y":"dOicXqbjFxoGJ-K0-GJ1kHYJqic_D_OMuUwkQ7Ol6nk"},"purposes":["authentication","keyAgreement"],"type":"EcdsaSecp256k1VerificationKey2019"}],"services":[{"id":"service1Id","serviceEndpoint":"http://www.service1.com","type":"service1Type"}]}}],"updateCommitment":"EiDKIkwqO69IPG3pOlHkdb86nYt0aNxSHZu2r-bhEznjdA"}',
    );
    expect(hashCanonical(create.delta)).toBe('EiCfDWRnYlcD9EGA3d_5Z1AHu-iYqMbJ9nfiqdz5S8VDbg');
    expect(canonicalize(create.suffixData)).toBe(
      '{"deltaHash":"EiCfDWRnYlcD9EGA3d_5Z1AHu-iYqMbJ9nfiqdz5S8VDbg","recoveryCommitment":"EiBfOZdMtU6OBw8Pk879QtZ-2J-9FbbjSZyoaA_bqD4zhA"}',
    );
    expect(create.didSuffix).toBe(SUFFIX);
    expect(create.nextRecoveryCommitment).toBe(commitmentOf(jwk1));
    expect(create.nextUpdateCommitment).toBe(commitmentOf(jwk2));
    const did = difVector<{ shortFormDid: string; longFormDid: string }>('resolution/did.json');
    expect(did.shortFormDid).toBe(SHORT_FORM);
    const { longFormDid } = did;
    expect(
      `${SHORT_FORM}:${base64UrlEncode(canonicalize({ delta: create.delta, suffixData: create.suffixData }))}`,
    ).toBe(longFormDid);
    const parsed = parseSidetreeDid(longFormDid);
    expect(parsed.suffix).toBe(SUFFIX);
    expect(parsed.shortForm).toBe(SHORT_FORM);
    expect(parsed.longFormCreate?.canonicalRequest.equals(create.canonicalRequest)).toBe(true);
  });

  it('update: reveal value, delta hash, next commitment and the ES256K signature', () => {
    const update = parseVector<UpdateOperation>('update');
    expect(update.revealValue).toBe(revealValueOf(jwk2));
    expect(update.revealedCommitment).toBe(commitmentOf(jwk2));
    expect(update.signedPayload.deltaHash).toBe('EiCpjN47f0Mq6xDNUKn4hSegMEqoDS_rpQ29Wy1V73VDbw');
    expect(hashCanonical(update.delta)).toBe('EiCpjN47f0Mq6xDNUKn4hSegMEqoDS_rpQ29Wy1V73VDbw');
    expect(update.nextUpdateCommitment).toBe('EiDOrcmPtfMHuwIWN6YoihdeIPxOKDHy3D6sdMXu_7CN0w');
    expect(update.jws.header).toEqual({ alg: 'ES256K' });
    expect(() => verifyJws(update.signedData, jwk2, { algorithms: ['ES256K'] })).not.toThrow();
    expect(() => verifyJws(update.signedData, jwk1, { algorithms: ['ES256K'] })).toThrow(
      'signature verification failed',
    );
  });

  it('recover: reveal value, delta hash, next commitments and the ES256K signature', () => {
    const recover = parseVector<RecoverOperation>('recover');
    expect(recover.revealValue).toBe('EiAJ-97Is59is6FKAProwDo870nmwCeP8n5nRRFwPpUZVQ');
    expect(recover.revealedCommitment).toBe('EiBfOZdMtU6OBw8Pk879QtZ-2J-9FbbjSZyoaA_bqD4zhA');
    expect(hashCanonical(recover.delta)).toBe('EiCSzmYJM2XjZXM4kT4ljJpEFN5fVC5ASVgxRzEm0Av9jw');
    expect(recover.nextRecoveryCommitment).toBe('EiCsA7SGLNeda5InloqnokUcJFz6vKT4HS5dcKrmnlJhpA');
    expect(recover.nextUpdateCommitment).toBe('EiD6_csybTfxELBoMgkE9O2BTCmhScG_RW_qaZQkIkJ_aQ');
    expect(() => verifyJws(recover.signedData, jwk1, { algorithms: ['ES256K'] })).not.toThrow();
  });

  it('deactivate: reveal value opens the recover commitment and the ES256K signature verifies', () => {
    const deactivate = parseVector('deactivate');
    if (deactivate.type !== 'deactivate') throw new Error('expected a deactivate');
    expect(deactivate.revealValue).toBe('EiB-dib5oumdaDGH47TB17Qg1nHza036bTIGibQOKFUY2A');
    expect(deactivate.revealedCommitment).toBe('EiCsA7SGLNeda5InloqnokUcJFz6vKT4HS5dcKrmnlJhpA');
    expect(deactivate.signedPayload.didSuffix).toBe(SUFFIX);
    expect(() => verifyJws(deactivate.signedData, jmnp, { algorithms: ['ES256K'] })).not.toThrow();
  });
});

describe('DIF vectors: resolution results (ION rendering)', () => {
  const create = parseVector<CreateOperation>('create');
  const update = parseVector<UpdateOperation>('update');
  const recover = parseVector<RecoverOperation>('recover');
  const deactivate = parseVector('deactivate');
  const resolve = (records: PublishedOperationRecord[], did: string = SHORT_FORM) =>
    renderIonResolution(resolveOperations(SUFFIX, { published: records }, { protocol: DIF_PROTOCOL }), { did });

  it('afterCreate', () => {
    expect(resolve([anchored(create, 1)])).toEqual(difVector('resolution/afterCreate.json'));
  });

  it('afterUpdate', () => {
    expect(resolve([anchored(create, 1), anchored(update, 2)])).toEqual(difVector('resolution/afterUpdate.json'));
  });

  it('afterRecover', () => {
    expect(resolve([anchored(create, 1), anchored(recover, 2)])).toEqual(difVector('resolution/afterRecover.json'));
  });

  it('afterDeactivate (create, recover, deactivate)', () => {
    expect(resolve([anchored(create, 1), anchored(recover, 2), anchored(deactivate, 3)])).toEqual(
      difVector('resolution/afterDeactivate.json'),
    );
  });

  it('the deactivate does not apply straight after the create (it opens the recover commitment)', () => {
    expect(resolve([anchored(create, 1), anchored(deactivate, 2)])).toEqual(difVector('resolution/afterCreate.json'));
  });

  it('longFormResponseDidDocument: the unpublished long form resolves from its initial state', () => {
    const { longFormDid } = difVector<{ longFormDid: string }>('resolution/did.json');
    const did = parseSidetreeDid(longFormDid);
    const model = resolveOperations(SUFFIX, { longFormCreate: did.longFormCreate }, { protocol: DIF_PROTOCOL });
    expect(renderIonResolution(model, { did })).toEqual(difVector('resolution/longFormResponseDidDocument.json'));
  });

  it('a published long form resolves like the short form, with the short form as canonical and equivalent id', () => {
    const { longFormDid } = difVector<{ longFormDid: string }>('resolution/did.json');
    const did = parseSidetreeDid(longFormDid);
    const model = resolveOperations(
      SUFFIX,
      { published: [anchored(create, 1), anchored(update, 2)], longFormCreate: did.longFormCreate },
      { protocol: DIF_PROTOCOL },
    );
    const result = renderIonResolution(model, { did });
    const afterUpdate = difVector<{ didDocumentMetadata: Record<string, unknown> }>('resolution/afterUpdate.json');
    expect(result.didDocumentMetadata).toEqual({ ...afterUpdate.didDocumentMetadata, equivalentId: [SHORT_FORM] });
    expect(result.didDocument.id).toBe(longFormDid);
  });
});

describe('small independent vectors (sidetree.md §1.7, §5.3)', () => {
  it('hashes suffix data to the sidetree-go suffix', () => {
    const suffixData = {
      deltaHash: 'EiBOmkP6kn7yjt0VocmcPu9OQOsZi199Evh-xB48ebubQA',
      recoveryCommitment: 'EiAAZJYry29vICkwmso8FL92WAISMAhsL8xkCm8dYVnq_w',
    };
    expect(hashCanonical(suffixData)).toBe('EiA5vyaRzJIxbkuZbvwEXiC__u8ieFx50TAAo98tBzCuyA');
  });

  it('parses the did:ion long form with "type":"create" inside its payload', () => {
    const payload =
      '{"delta":{"patches":[{"action":"replace","document":{"publicKeys":[{"id":"signingKey","publicKeyJwk":{"crv":"secp256k1","kty":"EC","x":"wdDfDjL1FQDOspp-qvdKQKr79em7Ns2E5SAUa9hIQi4","y":"PffsHDap5_KwRVp78-iBZBnWA6LKzzlb1IrwUhEjJn8"},"purposes":["authentication","assertionMethod","capabilityInvocation","capabilityDelegation","keyAgreement"],"type":"EcdsaSecp256k1VerificationKey2019"}],"services":[]}}],"updateCommitment":"EiAk4fnAJI2ngVyf8kgN_mB9zhf_aJrgpkkejUHm4u_x3A"},"suffixData":{"deltaHash":"EiATZZ-crXy9qXxhFvAEdIaSJKcKSY5nnFynBBIkl81y7Q","recoveryCommitment":"EiAN8t7PyYbkN4W7dEY_RY_nXYCesROB_fQlsulwySraQw"},"type":"create"}';
    const suffix = 'EiD9H4OHw5X4ctS1Q1G9LxmyEed9WDBW_QZ4VMpuOtRciw';
    const parsed = parseSidetreeDid(`did:ion:${suffix}:${base64UrlEncode(payload)}`, { namespace: 'did:ion' });
    expect(parsed.suffix).toBe(suffix);
    expect(parsed.longFormCreate?.didSuffix).toBe(suffix);
    expect(parsed.longFormCreate?.suffixData.deltaHash).toBe(hashCanonical(parsed.longFormCreate?.delta));
  });

  it('hashes an Ed25519 signing key the Go way, with "y":""', () => {
    const key = { kty: 'OKP', crv: 'Ed25519', x: 'M8EwJz0zblSYH1a1ef0UUrxA7RdoxloPKPU5cYsab1o' };
    expect(revealValueOf(key)).toBe('EiCNwbp6JlmNs-ecJWibfCsiM-ZNIR2W8Vy3oRQqiadBdg');
    expect(commitmentOf(key)).toBe('EiAFzWDY6gk5s1Ts0eWzr92HQstDD5FHUSYXqyrJ0sX1qA');
    // Without normalisation (the plain JWK) the values differ: the reference's "without y" row.
    expect(hashCanonical(key)).toBe('EiAEy4zo0-wi0NfGlBUs3ulobkuPPlXOehXJwKQJ4ghfsg');
    expect(commitmentOfBytes(canonicalize(key))).toBe('EiDg8KAYg6sD9DuMxZNAr8iu7_fEpwuAa_TaUU0wS21o8Q');
    // Members Go drops (kid, alg, use) do not change the values.
    expect(commitmentOf({ ...key, kid: 'k1', alg: 'EdDSA', use: 'sig' })).toBe(
      'EiAFzWDY6gk5s1Ts0eWzr92HQstDD5FHUSYXqyrJ0sX1qA',
    );
  });
});
