import { describe, expect, it } from 'vitest';
import { KeyPair, localSigner, type KeyType, type Signer } from '../crypto/index.js';
import { multibaseDecode } from '../encoding/index.js';
import { AppError, transient } from '../errors/index.js';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from './anchor-credential.js';
import { CONTEXT_URLS } from './contexts.js';
import {
  ISSUER_DID,
  KEY_2018_ID,
  KEY_2020_ID,
  anchorCredential,
  degreeCredential,
  issuerDidDocument,
  issuerKey,
} from './fixtures.js';
import type { DataIntegrityProof, ProofType, SecuredDocument } from './proof-types.js';
import { attachProof, createProof, signDocument } from './sign.js';
import { controllerDocumentResolver, type VerificationMethodResolver } from './verification-method.js';
import { assertDocumentVerified, verifyDocument, type ProofCheck } from './verify.js';

const resolver = controllerDocumentResolver([issuerDidDocument()]);
const CREATED = '2024-03-01T20:00:00Z';

type Signed = SecuredDocument & { proof: DataIntegrityProof; credentialSubject: Record<string, unknown> };

async function signed2020(extra: Partial<Parameters<typeof signDocument>[1]> = {}): Promise<Signed> {
  return (await signDocument(degreeCredential(), {
    key: issuerKey,
    verificationMethod: KEY_2020_ID,
    created: CREATED,
    ...extra,
  })) as Signed;
}

async function failedCheck(
  document: unknown,
  options: Partial<Parameters<typeof verifyDocument>[1]> = {},
): Promise<ProofCheck | undefined> {
  const result = await verifyDocument(document, { resolver, ...options });
  expect(result.verified).toBe(false);
  return result.proofs.find((proof) => !proof.verified)?.failure?.check;
}

/** A controller with one JsonWebKey2020 per key type, all listed under assertionMethod. */
function jwkController(keys: Record<string, KeyPair>) {
  const id = 'did:example:jwk';
  return {
    id,
    verificationMethod: Object.entries(keys).map(([name, key]) => ({
      id: `${id}#${name}`,
      type: 'JsonWebKey2020',
      controller: id,
      publicKeyJwk: key.publicJwk(),
    })),
    assertionMethod: Object.keys(keys).map((name) => `${id}#${name}`),
  };
}

describe('signDocument', () => {
  it('appends an Ed25519Signature2020 proof with the documented defaults and a base58btc proofValue', async () => {
    const document = await signed2020({ created: undefined });
    expect(document.proof).toMatchObject({
      type: 'Ed25519Signature2020',
      verificationMethod: KEY_2020_ID,
      proofPurpose: 'assertionMethod',
    });
    expect(document.proof.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(document.proof.proofValue).toMatch(/^z[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect(document.proof).not.toHaveProperty('domain');
  });

  it('signs through an asynchronous Signer exactly as with the private key itself', async () => {
    const calls: number[] = [];
    const local = localSigner(issuerKey);
    // A signer whose key is elsewhere: it answers later and never exposes the private key.
    const remote: Signer = {
      type: 'Ed25519',
      publicKey: issuerKey.toPublic(),
      keyRef: 'https://kms.example/keys/issuer/1',
      sign: async (data) => {
        calls.push(data.length);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return local.sign(data);
      },
    };
    for (const [type, verificationMethod] of [
      ['Ed25519Signature2020', KEY_2020_ID],
      ['Ed25519Signature2018', KEY_2018_ID],
      ['JsonWebSignature2020', KEY_2020_ID],
    ] as const) {
      const viaSigner = (await signDocument(degreeCredential(), {
        signer: remote,
        verificationMethod,
        type,
        created: CREATED,
      })) as Signed;
      const viaKey = (await signDocument(degreeCredential(), {
        key: issuerKey,
        verificationMethod,
        type,
        created: CREATED,
      })) as Signed;
      expect(viaSigner).toEqual(viaKey);
      expect(await verifyDocument(viaSigner, { resolver })).toMatchObject({ verified: true });
    }
    expect(calls).toHaveLength(3);
  });

  it('refuses a signer of a key type the suite does not take, both a signer and a key, or a public key', async () => {
    const p256 = localSigner(KeyPair.generate('P-256'));
    await expect(signed2020({ key: undefined, signer: p256 })).rejects.toThrow(
      /Ed25519Signature2020 cannot sign with a P-256 key/,
    );
    await expect(
      signDocument(degreeCredential(), {
        signer: localSigner(issuerKey),
        key: issuerKey,
        verificationMethod: KEY_2020_ID,
      }),
    ).rejects.toThrow(/a signer or a key, not both/);
    await expect(signed2020({ key: issuerKey.toPublic() })).rejects.toThrow(/signing needs a private key/);
    await expect(signDocument(degreeCredential(), { verificationMethod: KEY_2020_ID })).rejects.toThrow(
      /needs a signer/,
    );
  });

  it('is deterministic for the same input (Ed25519)', async () => {
    expect((await signed2020()).proof.proofValue).toBe((await signed2020()).proof.proofValue);
  });

  it('leaves the input document untouched', async () => {
    const credential = degreeCredential();
    const before = structuredClone(credential);
    await signDocument(credential, { key: issuerKey, verificationMethod: KEY_2020_ID, type: 'JsonWebSignature2020' });
    expect(credential).toEqual(before);
  });

  it('adds the suite context only when no context defining the suite is there', async () => {
    const credential = {
      ...degreeCredential(),
      '@context': (degreeCredential()['@context'] as unknown[]).filter(
        (c) => c !== CONTEXT_URLS.ed25519Signature2020V1,
      ),
    };
    const with2020 = await signDocument(credential, { key: issuerKey, verificationMethod: KEY_2020_ID });
    expect(with2020['@context']).toEqual([
      ...(credential['@context'] as unknown[]),
      CONTEXT_URLS.ed25519Signature2020V1,
    ]);
    const with2018 = await signDocument(credential, {
      key: issuerKey,
      verificationMethod: KEY_2018_ID,
      type: 'Ed25519Signature2018',
    });
    expect(with2018['@context']).toEqual(credential['@context']); // credentials/v1 defines Ed25519Signature2018
    const withJws = await signDocument(credential, {
      key: issuerKey,
      verificationMethod: KEY_2020_ID,
      type: 'JsonWebSignature2020',
    });
    expect((withJws['@context'] as unknown[]).at(-1)).toBe(CONTEXT_URLS.jws2020V1);
  });

  it('signs Ed25519Signature2018 as a detached b64=false EdDSA JWS', async () => {
    const document = (await signDocument(degreeCredential(), {
      key: issuerKey,
      verificationMethod: KEY_2018_ID,
      type: 'Ed25519Signature2018',
    })) as Signed;
    const [header, payload, signature] = (document.proof.jws as string).split('.');
    expect(JSON.parse(Buffer.from(header as string, 'base64url').toString())).toEqual({
      alg: 'EdDSA',
      b64: false,
      crit: ['b64'],
    });
    expect(payload).toBe('');
    expect(Buffer.from(signature as string, 'base64url')).toHaveLength(64);
    expect(await verifyDocument(document, { resolver })).toMatchObject({ verified: true });
  });

  it.each<[KeyType, string]>([
    ['Ed25519', 'EdDSA'],
    ['P-256', 'ES256'],
    ['P-384', 'ES384'],
    ['secp256k1', 'ES256K'],
  ])('signs and verifies JsonWebSignature2020 with a %s key (%s)', async (type, alg) => {
    const key = KeyPair.generate(type);
    const jwkResolver = controllerDocumentResolver([jwkController({ k: key })]);
    const document = (await signDocument(degreeCredential(), {
      key,
      verificationMethod: 'did:example:jwk#k',
      type: 'JsonWebSignature2020',
    })) as Signed;
    expect(
      JSON.parse(Buffer.from((document.proof.jws as string).split('.')[0] as string, 'base64url').toString()).alg,
    ).toBe(alg);
    expect(await verifyDocument(document, { resolver: jwkResolver })).toMatchObject({
      verified: true,
      proofs: [{ controller: 'did:example:jwk' }],
    });
    const tampered = { ...document, issuanceDate: '2025-01-01T00:00:00Z' };
    expect(await failedCheck(tampered, { resolver: jwkResolver })).toBe('signature');
  });

  it('refuses keys and options the suite cannot honour', async () => {
    const p256 = KeyPair.generate('P-256');
    await expect(signDocument(degreeCredential(), { key: p256, verificationMethod: 'x#1' })).rejects.toThrow(
      /Ed25519Signature2020 cannot sign with a P-256 key/,
    );
    await expect(
      signDocument(degreeCredential(), { key: issuerKey.toPublic(), verificationMethod: KEY_2020_ID }),
    ).rejects.toThrow(/private key/);
    await expect(signDocument(degreeCredential(), { key: issuerKey, verificationMethod: '' })).rejects.toThrow(
      /verificationMethod/,
    );
    await expect(
      signDocument(degreeCredential(), { key: issuerKey, verificationMethod: KEY_2020_ID, created: 'yesterday' }),
    ).rejects.toThrow(/created/);
    await expect(
      signDocument(degreeCredential(), {
        key: issuerKey,
        verificationMethod: KEY_2020_ID,
        created: new Date(Number.NaN),
      }),
    ).rejects.toThrow(/created/);
    await expect(
      signDocument(degreeCredential(), {
        key: issuerKey,
        verificationMethod: KEY_2020_ID,
        type: 'RsaSignature2018' as ProofType,
      }),
    ).rejects.toThrow(/unsupported proof type/);
    await expect(
      signDocument(degreeCredential(), {
        key: issuerKey,
        verificationMethod: KEY_2020_ID,
        proofPurpose: 'bragging' as 'authentication',
      }),
    ).rejects.toThrow(/proof purpose/);
    await expect(
      signDocument(degreeCredential(), { key: issuerKey, verificationMethod: KEY_2020_ID, domain: '' }),
    ).rejects.toThrow(/domain/);
    const blanket = { allowUndefinedTerms: 'any' as unknown as string[] };
    await expect(
      signDocument(degreeCredential(), { key: issuerKey, verificationMethod: KEY_2020_ID, ...blanket }),
    ).rejects.toThrow(/list of terms/);
    await expect(verifyDocument(await signed2020(), { resolver, ...blanket })).rejects.toThrow(/list of terms/);
  });

  it('refuses malformed documents with a bad_request', async () => {
    const sign = (document: unknown) =>
      signDocument(document as object, { key: issuerKey, verificationMethod: KEY_2020_ID });
    for (const document of [
      null,
      [],
      { type: 'VerifiableCredential' },
      { ...degreeCredential(), proof: 'x' },
      { ...degreeCredential(), unknownTerm: 1 },
    ]) {
      const error = await sign(document).catch((e: unknown) => e);
      expect(error, JSON.stringify(document)?.slice(0, 60)).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('bad_request');
    }
  });
});

describe('verifyDocument', () => {
  it('ignores @context changes that change no statement (the signature covers the RDF, not the JSON)', async () => {
    const document = await signed2020();
    const reordered = { ...document, '@context': [...(document['@context'] as unknown[]), CONTEXT_URLS.jws2020V1] };
    expect((await verifyDocument(reordered, { resolver })).verified).toBe(true);
  });

  it('verifies and reports the controller of the key', async () => {
    const result = await verifyDocument(await signed2020({ domain: 'https://vct.example.com/log' }), { resolver });
    expect(result).toEqual({
      verified: true,
      proofs: [
        {
          index: 0,
          type: 'Ed25519Signature2020',
          verificationMethod: KEY_2020_ID,
          domain: 'https://vct.example.com/log',
          controller: ISSUER_DID,
          verified: true,
        },
      ],
    });
  });

  describe('any change to a signed field breaks the signature', () => {
    const tamperings: [string, (document: Signed) => void, ProofCheck][] = [
      ['a credentialSubject value', (d) => void (d.credentialSubject.name = 'Mallory'), 'signature'],
      [
        'a nested subject value',
        (d) => void ((d.credentialSubject.degree as Record<string, unknown>).name = 'PhD'),
        'signature',
      ],
      ['the issuanceDate', (d) => void (d.issuanceDate = '2024-03-01T19:23:25Z'), 'signature'],
      ['the issuer', (d) => void (d.issuer = 'did:example:other'), 'signature'],
      ['the proof created', (d) => void (d.proof.created = '2024-03-01T20:00:01Z'), 'signature'],
      ['the proof domain', (d) => void (d.proof.domain = 'https://evil.example.com'), 'signature'],
      ['a proof challenge added', (d) => void (d.proof.challenge = 'c-1'), 'signature'],
      ['the proof verificationMethod', (d) => void (d.proof.verificationMethod = KEY_2018_ID), 'signature'],
      ['the proof purpose (to one the key also has)', (d) => void (d.proof.proofPurpose = 'authentication'), 'purpose'],
      [
        'the proofValue',
        (d) => void (d.proof.proofValue = `${(d.proof.proofValue as string).slice(0, -2)}11`),
        'signature',
      ],
      [
        'the proofValue encoding (base64url multibase)',
        (d) => void (d.proof.proofValue = `u${Buffer.alloc(64).toString('base64url')}`),
        'signature',
      ],
      [
        'the @context (what a term means)',
        (d) => void (d['@context'] = [...(d['@context'] as unknown[]), { name: 'https://example.org/vocab#nickname' }]),
        'signature',
      ],
    ];
    it.each(tamperings)('%s', async (_name, tamper, check) => {
      const document = await signed2020({ domain: 'https://vct.example.com/log' });
      expect((await verifyDocument(document, { resolver })).verified).toBe(true);
      const tampered = structuredClone(document);
      tamper(tampered);
      expect(await failedCheck(tampered)).toBe(check);
    });

    it('the jws of an Ed25519Signature2018 proof, its header or its data', async () => {
      const document = (await signDocument(degreeCredential(), {
        key: issuerKey,
        verificationMethod: KEY_2018_ID,
        type: 'Ed25519Signature2018',
      })) as Signed;
      const [header, , signature] = (document.proof.jws as string).split('.') as [string, string, string];
      // Flip bits of the first signature byte: overwriting the last characters (say with `AA`) is a no-op
      // whenever the signature already ends in those bits, about one run in 256.
      const flipped = Buffer.from(signature, 'base64url');
      flipped[0] = (flipped[0] as number) ^ 0xff;
      const variants = [
        `${header}..${flipped.toString('base64url')}`,
        `${Buffer.from('{"alg":"ES256","b64":false,"crit":["b64"]}').toString('base64url')}..${signature}`,
        `${header}.${Buffer.from('payload').toString('base64url')}.${signature}`,
        'not a jws',
      ];
      for (const jws of variants)
        expect(await failedCheck({ ...document, proof: { ...document.proof, jws } }), jws).toBe('signature');
      expect(await failedCheck({ ...document, issuanceDate: '2030-01-01T00:00:00Z' })).toBe('signature');
    });
  });

  it('checks the purpose against the expected one and against the key relationships', async () => {
    const authentication = (await signDocument(degreeCredential(), {
      key: issuerKey,
      verificationMethod: KEY_2020_ID,
      proofPurpose: 'authentication',
    })) as Signed;
    expect(await failedCheck(authentication)).toBe('purpose');
    expect((await verifyDocument(authentication, { resolver, proofPurpose: 'authentication' })).verified).toBe(true);
    // key-2018 is not listed under authentication by the controller
    const notListed = (await signDocument(degreeCredential(), {
      key: issuerKey,
      verificationMethod: KEY_2018_ID,
      proofPurpose: 'authentication',
    })) as Signed;
    const result = await verifyDocument(notListed, { resolver, proofPurpose: 'authentication' });
    expect(result.proofs[0]?.failure).toEqual({
      check: 'relationship',
      message: `${KEY_2018_ID} is not listed under authentication by its controller ${ISSUER_DID}`,
    });
  });

  it('checks domain and challenge when they are expected', async () => {
    const document = await signed2020({ domain: 'https://vct.example.com/log', challenge: 'nonce-1' });
    expect(
      (await verifyDocument(document, { resolver, domain: 'https://vct.example.com/log', challenge: 'nonce-1' }))
        .verified,
    ).toBe(true);
    expect(await failedCheck(document, { domain: 'https://vct.example.com/other' })).toBe('domain');
    expect(await failedCheck(document, { challenge: 'nonce-2' })).toBe('challenge');
    expect(await failedCheck(await signed2020(), { domain: 'https://vct.example.com/log' })).toBe('domain');
  });

  it('checks the created date format', async () => {
    const document = await signed2020();
    for (const created of [
      '2024-03-01',
      '2024-03-01T20:00:00',
      '2024-02-30T20:00:00Z',
      '2024-03-01T24:00:00Z',
      1709323200,
      'now',
    ]) {
      expect(await failedCheck({ ...document, proof: { ...document.proof, created } }), String(created)).toBe(
        'created',
      );
    }
  });

  it('accepts fractional seconds and offsets in created (signed that way)', async () => {
    for (const created of ['2024-03-01T20:00:00.123Z', '2024-03-01T21:00:00+01:00']) {
      expect((await verifyDocument(await signed2020({ created }), { resolver })).verified, created).toBe(true);
    }
  });

  it('reports unknown verification methods, wrong key types and resolver errors per proof', async () => {
    const document = await signed2020();
    expect(
      await failedCheck({ ...document, proof: { ...document.proof, verificationMethod: `${ISSUER_DID}#missing` } }),
    ).toBe('verification-method');
    const p256 = KeyPair.generate('P-256');
    const wrongKeyType: VerificationMethodResolver = async (id) => ({
      id,
      controller: ISSUER_DID,
      key: p256,
      purposes: ['assertionMethod'],
    });
    expect(await failedCheck(document, { resolver: wrongKeyType })).toBe('key-type');
    const liar: VerificationMethodResolver = async () => ({
      id: 'did:example:other#k',
      controller: 'did:example:other',
      key: issuerKey,
      purposes: ['assertionMethod'],
    });
    expect(await failedCheck(document, { resolver: liar })).toBe('verification-method');
    const broken: VerificationMethodResolver = async () => {
      throw new Error('did:web document is not JSON');
    };
    const result = await verifyDocument(document, { resolver: broken });
    expect(result.proofs[0]?.failure?.message).toContain('did:web document is not JSON');
  });

  it('rethrows a resolver failure worth retrying instead of calling the proof invalid', async () => {
    const unreachable: VerificationMethodResolver = async () => {
      throw transient('did:web host unreachable');
    };
    await expect(verifyDocument(await signed2020(), { resolver: unreachable })).rejects.toMatchObject({
      code: 'unavailable',
      retryable: true,
    });
  });

  it('reports structural problems of a proof', async () => {
    const document = await signed2020();
    const { proofValue: _proofValue, ...withoutValue } = document.proof;
    expect(await failedCheck({ ...document, proof: withoutValue })).toBe('structure');
    expect(await failedCheck({ ...document, proof: { ...document.proof, type: 'RsaSignature2018' } })).toBe('type');
    expect(
      await failedCheck({ ...document, proof: { ...document.proof, verificationMethod: { id: KEY_2020_ID } } }),
    ).toBe('structure');
    expect(await failedCheck({ ...document, proof: [document.proof, 'not an object'] })).toBe('structure');
    expect(await failedCheck({ ...document, proof: { ...document.proof, undefinedMember: 'x' } })).toBe(
      'canonicalization',
    );
  });

  it('says why nothing was verified when there is no proof to check', async () => {
    expect(await verifyDocument(degreeCredential(), { resolver })).toEqual({
      verified: false,
      proofs: [],
      error: 'the document carries no proof',
    });
    const result = await verifyDocument(await signed2020(), {
      resolver,
      proofs: { domain: 'https://vct.example.com/log' },
    });
    expect(result).toEqual({
      verified: false,
      proofs: [],
      error: 'the document carries no proof with domain "https://vct.example.com/log"',
    });
  });

  it('throws a bad_request for a malformed document', async () => {
    for (const document of [null, 'text', [], { type: 'VerifiableCredential' }]) {
      await expect(verifyDocument(document, { resolver })).rejects.toMatchObject({ code: 'bad_request' });
    }
    const unknownContext = {
      ...(await signed2020()),
      '@context': [CONTEXT_URLS.credentialsV1, 'https://example.com/v1'],
    };
    await expect(verifyDocument(unknownContext, { resolver })).rejects.toThrow(
      /unknown JSON-LD context https:\/\/example.com\/v1/,
    );
  });
});

describe('assertDocumentVerified', () => {
  it('returns the result when every checked proof holds', async () => {
    await expect(assertDocumentVerified(await signed2020(), { resolver })).resolves.toMatchObject({ verified: true });
  });

  it('throws one bad_request naming the failing proof and check', async () => {
    const document = await signed2020();
    const error = await assertDocumentVerified(
      { ...document, issuanceDate: '2020-01-01T00:00:00Z' },
      { resolver },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'bad_request',
      message: `proof verification failed: proof 0 (signature): the proofValue does not verify with ${KEY_2020_ID}`,
    });
    await expect(assertDocumentVerified(degreeCredential(), { resolver })).rejects.toThrow(
      'proof verification failed: the document carries no proof',
    );
  });
});

describe('an anchor credential with a witness proof added later', () => {
  const ORIGIN = 'did:web:orb.domain1.com';
  const WITNESS = 'did:web:orb.domain2.com';
  const LOG = 'https://vct.domain2.com/maple2020';
  const originKey = KeyPair.fromSeed('Ed25519', Buffer.alloc(32, 1));
  const witnessKey = KeyPair.fromSeed('Ed25519', Buffer.alloc(32, 2));
  const didDocument = (id: string, key: KeyPair) => ({
    id,
    verificationMethod: [
      {
        id: `${id}#vc-key`,
        type: 'Ed25519VerificationKey2020',
        controller: id,
        publicKeyMultibase: key.publicKeyMultibase(),
      },
    ],
    assertionMethod: ['#vc-key'],
  });
  const anchorResolver = controllerDocumentResolver([didDocument(ORIGIN, originKey), didDocument(WITNESS, witnessKey)]);
  const lenient = { allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS };

  async function witnessed(): Promise<SecuredDocument> {
    const credential = await signDocument(anchorCredential(), {
      key: originKey,
      verificationMethod: `${ORIGIN}#vc-key`,
      domain: 'https://orb.domain1.com',
      created: '2022-03-15T21:21:54.621Z',
      ...lenient,
    });
    // The witness signs the credential it was offered and returns only its proof; the origin attaches it.
    const witnessProof = await createProof(credential, {
      key: witnessKey,
      verificationMethod: `${WITNESS}#vc-key`,
      domain: LOG,
      created: '2022-03-15T21:21:55.1Z',
      ...lenient,
    });
    return attachProof(credential, witnessProof);
  }

  it('verifies both proofs, each covering the credential without any proof', async () => {
    const credential = await witnessed();
    expect(Array.isArray(credential.proof) && credential.proof.map((proof) => proof.domain)).toEqual([
      'https://orb.domain1.com',
      LOG,
    ]);
    const result = await verifyDocument(credential, { resolver: anchorResolver, ...lenient });
    expect(result.verified).toBe(true);
    expect(result.proofs.map((proof) => proof.controller)).toEqual([ORIGIN, WITNESS]);
  });

  it('verifies the log witness proof alone, selected by domain', async () => {
    const result = await verifyDocument(await witnessed(), {
      resolver: anchorResolver,
      proofs: { domain: LOG },
      ...lenient,
    });
    expect(result).toMatchObject({ verified: true, proofs: [{ index: 1, controller: WITNESS }] });
  });

  it('fails as a whole when one proof fails, and says which', async () => {
    const credential = (await witnessed()) as SecuredDocument & { proof: DataIntegrityProof[] };
    const [origin, witness] = credential.proof as [DataIntegrityProof, DataIntegrityProof];
    const forged = { ...credential, proof: [origin, { ...witness, created: '2022-03-15T21:30:00Z' }] };
    const result = await verifyDocument(forged, { resolver: anchorResolver, ...lenient });
    expect(result.verified).toBe(false);
    expect(result.proofs.map((proof) => proof.verified)).toEqual([true, false]);
    expect(
      (
        await verifyDocument(forged, {
          resolver: anchorResolver,
          proofs: { domain: 'https://orb.domain1.com' },
          ...lenient,
        })
      ).verified,
    ).toBe(true);
  });

  it('any change to the signed subject breaks both proofs; the undefined members are not signed', async () => {
    const credential = (await witnessed()) as SecuredDocument & { credentialSubject: Record<string, unknown> };
    const anchorChanged = {
      ...credential,
      credentialSubject: { ...credential.credentialSubject, anchor: 'hl:uEiBother' },
    };
    expect(
      (await verifyDocument(anchorChanged, { resolver: anchorResolver, ...lenient })).proofs.map(
        (proof) => proof.failure?.check,
      ),
    ).toEqual(['signature', 'signature']);
    const hrefChanged = { ...credential, credentialSubject: { ...credential.credentialSubject, href: 'hl:uEiBother' } };
    expect((await verifyDocument(hrefChanged, { resolver: anchorResolver, ...lenient })).verified).toBe(true);
  });

  it('cannot be verified in strict safe mode, with an error that says why', async () => {
    await expect(verifyDocument(await witnessed(), { resolver: anchorResolver })).rejects.toThrow(
      /term "href" is not defined/,
    );
  });
});

describe('DataIntegrityProof (eddsa-rdfc-2022, eddsa-jcs-2022, ecdsa-rdfc-2019, ecdsa-jcs-2019)', () => {
  const did = 'did:example:multikey';
  const keys = { ed: issuerKey, p256: KeyPair.generate('P-256'), p384: KeyPair.generate('P-384') };
  const multikeyController = {
    id: did,
    verificationMethod: Object.entries(keys).map(([name, key]) => ({
      id: `${did}#${name}`,
      type: 'Multikey',
      controller: did,
      publicKeyMultibase: key.publicKeyMultibase(),
    })),
    assertionMethod: Object.keys(keys).map((name) => `${did}#${name}`),
  };
  const diResolver = controllerDocumentResolver([multikeyController]);
  const v2Credential = () => ({
    '@context': [CONTEXT_URLS.credentialsV2, { '@vocab': 'https://example.org/vocab#' }],
    type: ['VerifiableCredential'],
    issuer: did,
    validFrom: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:subject', degree: { type: 'Degree', name: 'BSc' } },
  });

  it.each([
    ['eddsa-rdfc-2022', 'ed', 64],
    ['eddsa-jcs-2022', 'ed', 64],
    ['ecdsa-rdfc-2019', 'p256', 64],
    ['ecdsa-rdfc-2019', 'p384', 96],
    ['ecdsa-jcs-2019', 'p256', 64],
    ['ecdsa-jcs-2019', 'p384', 96],
  ] as const)('%s with the %s key signs, verifies, and fails when tampered', async (cryptosuite, name, length) => {
    const document = (await signDocument(v2Credential(), {
      signer: localSigner(keys[name]),
      cryptosuite,
      verificationMethod: `${did}#${name}`,
    })) as Signed;
    expect(document['@context']).toEqual(v2Credential()['@context']); // credentials/v2 defines DataIntegrityProof
    expect(document.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite, proofPurpose: 'assertionMethod' });
    expect(multibaseDecode(document.proof.proofValue as string)).toHaveLength(length);
    expect(await verifyDocument(document, { resolver: diResolver })).toMatchObject({ verified: true });
    const tampered = structuredClone(document);
    tampered.credentialSubject.id = 'did:example:mallory';
    expect(await failedCheck(tampered, { resolver: diResolver })).toBe('signature');
    const otherSuite = structuredClone(document);
    // The same key and signature claimed for the other canonicalisation of the same family.
    otherSuite.proof.cryptosuite = cryptosuite.replace(/rdfc|jcs/, (c) => (c === 'rdfc' ? 'jcs' : 'rdfc'));
    expect(await failedCheck(otherSuite, { resolver: diResolver })).toBe('signature');
  });

  it('adds the data-integrity context to a credentials/v1 document', async () => {
    const document = await signDocument(degreeCredential(), {
      key: issuerKey,
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: `${did}#ed`,
    });
    expect((document['@context'] as unknown[]).at(-1)).toBe(CONTEXT_URLS.dataIntegrityV2);
    expect(await verifyDocument(document, { resolver: diResolver })).toMatchObject({ verified: true });
  });

  it('checks every proof of a set, each by its own suite, and names the one that fails', async () => {
    const once = await signDocument(v2Credential(), {
      key: keys.ed,
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: `${did}#ed`,
    });
    const twice = await signDocument(once, {
      key: keys.p256,
      cryptosuite: 'ecdsa-rdfc-2019',
      verificationMethod: `${did}#p256`,
    });
    const thrice = (await signDocument(twice, {
      key: keys.p384,
      cryptosuite: 'ecdsa-jcs-2019',
      verificationMethod: `${did}#p384`,
    })) as SecuredDocument & { proof: DataIntegrityProof[] };
    expect((await verifyDocument(thrice, { resolver: diResolver })).proofs.map((p) => p.verified)).toEqual([
      true,
      true,
      true,
    ]);
    // Only the last proof is broken: a verifier that checks proof 0 alone (vc-rest did) accepts this.
    thrice.proof[2] = { ...thrice.proof[2], created: '2020-01-01T00:00:00Z' } as DataIntegrityProof;
    const result = await verifyDocument(thrice, { resolver: diResolver });
    expect(result.verified).toBe(false);
    expect(result.proofs.map((p) => p.failure?.check)).toEqual([undefined, undefined, 'signature']);
  });

  it('refuses a missing or unknown cryptosuite, a cryptosuite on another type, and a key the suite does not take', async () => {
    const sign = (extra: Partial<Parameters<typeof signDocument>[1]>) =>
      signDocument(v2Credential(), { key: keys.ed, verificationMethod: `${did}#ed`, ...extra });
    await expect(sign({ type: 'DataIntegrityProof' })).rejects.toThrow('a DataIntegrityProof needs a cryptosuite');
    await expect(sign({ cryptosuite: 'eddsa-2022' as never })).rejects.toThrow('unsupported cryptosuite "eddsa-2022"');
    await expect(sign({ type: 'Ed25519Signature2020', cryptosuite: 'eddsa-rdfc-2022' })).rejects.toThrow(
      'a Ed25519Signature2020 proof takes no cryptosuite',
    );
    await expect(sign({ cryptosuite: 'ecdsa-rdfc-2019' })).rejects.toThrow(
      'ecdsa-rdfc-2019 cannot sign with a Ed25519 key (it takes P-256, P-384)',
    );
    await expect(sign({ id: 'urn:uuid:1' })).rejects.toThrow(/DataIntegrityProof members, not Ed25519Signature2020/);
    await expect(sign({ cryptosuite: 'eddsa-rdfc-2022', previousProof: 'urn:uuid:none' })).rejects.toThrow(
      'previousProof "urn:uuid:none" names no proof of the document',
    );
    await expect(sign({ cryptosuite: 'eddsa-rdfc-2022', expires: 'soon' })).rejects.toThrow(/expires must be/);

    const document = (await sign({ cryptosuite: 'eddsa-rdfc-2022' })) as Signed;
    const check = (
      tamper: (proof: DataIntegrityProof) => void,
      options: Partial<Parameters<typeof verifyDocument>[1]> = {},
    ) => {
      const copy = structuredClone(document);
      tamper(copy.proof);
      return failedCheck(copy, { resolver: diResolver, ...options });
    };
    expect(await check((p) => delete p.cryptosuite)).toBe('type');
    expect(await check((p) => void (p.cryptosuite = 'bbs-2023'))).toBe('type');
    expect(await check((p) => void (p.verificationMethod = `${did}#p256`))).toBe('key-type');
    expect(await check((p) => void (p.proofValue = undefined))).toBe('structure');
    expect(await check((p) => void (p['@context'] = ['https://example.org/other']))).toBe('structure');
    expect(await check((p) => void (p.previousProof = 'urn:uuid:gone'))).toBe('previous-proof');
  });

  it('signs and accepts a domain list (Data Integrity allows several): each listed domain verifies, no other', async () => {
    const document = await signDocument(v2Credential(), {
      key: keys.ed,
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: `${did}#ed`,
      domain: ['https://a.example', 'https://b.example'],
    });
    for (const domain of ['https://a.example', 'https://b.example']) {
      expect(await verifyDocument(document, { resolver: diResolver, domain })).toMatchObject({ verified: true });
      expect(await verifyDocument(document, { resolver: diResolver, proofs: { domain } })).toMatchObject({
        verified: true,
      });
    }
    expect(await failedCheck(document, { resolver: diResolver, domain: 'https://c.example' })).toBe('domain');
    await expect(
      signDocument(v2Credential(), {
        key: keys.ed,
        cryptosuite: 'eddsa-rdfc-2022',
        verificationMethod: `${did}#ed`,
        domain: [],
      }),
    ).rejects.toThrow(/domain must be a non-empty string or list of them/);
  });

  it('honours expires: valid before, refused after', async () => {
    const document = await signDocument(v2Credential(), {
      key: keys.ed,
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: `${did}#ed`,
      created: '2024-01-01T00:00:00Z',
      expires: '2025-01-01T00:00:00Z',
    });
    expect(
      await verifyDocument(document, { resolver: diResolver, now: new Date('2024-06-01T00:00:00Z') }),
    ).toMatchObject({
      verified: true,
    });
    expect(await failedCheck(document, { resolver: diResolver, now: new Date('2025-01-01T00:00:00Z') })).toBe(
      'expires',
    );
  });
});

describe('a malformed document', () => {
  it('is a bad_request naming the context before any verification method is resolved', async () => {
    const resolverCalls: string[] = [];
    const counting: VerificationMethodResolver = async (id) => {
      resolverCalls.push(id);
      return undefined;
    };
    const document = {
      ...(await signed2020()),
      '@context': [CONTEXT_URLS.credentialsV1, 'https://example.org/not-bundled/v1'],
    };
    await expect(verifyDocument(document, { resolver: counting })).rejects.toThrow(
      /unknown JSON-LD context https:\/\/example.org\/not-bundled\/v1/,
    );
    expect(resolverCalls).toEqual([]);
  });
});
