import { beforeAll, describe, expect, it } from 'vitest';
import { KeyPair, localSigner } from '../../crypto/index.js';
import { CONTEXT_URLS } from '../contexts.js';
import { degreeCredential, issuerKey } from '../fixtures.js';
import type { Cryptosuite, DataIntegrityProof, SecuredDocument } from '../proof-types.js';
import { signDocument } from '../sign.js';
import { controllerDocumentResolver, type ControllerDocument } from '../verification-method.js';
import { verifyDocument } from '../verify.js';
import { oracleValue, runOracle, type OracleResult, type OracleTask } from './oracle.test-helpers.js';

/**
 * The W3C Data Integrity cryptosuites against Digital Bazaar's implementation (@digitalbazaar/data-integrity
 * with the eddsa-rdfc-2022 and ecdsa-rdfc-2019 cryptosuites, through @digitalbazaar/vc), in its own process
 * on a pristine jsonld.js, with a document loader that serves only our bundled contexts and the controller
 * document: VC 2.0 credentials signed here verify there, theirs verify here, and Ed25519 (deterministic) gives
 * both sides the very same proofValue.
 */
const DID = 'did:example:data-integrity';
const CREATED = '2024-06-01T12:00:00Z';
const keys = { ed: issuerKey, p256: KeyPair.generate('P-256'), p384: KeyPair.generate('P-384') };
type KeyName = keyof typeof keys;
const methodId = (name: KeyName) => `${DID}#${name}`;

const controller: ControllerDocument = {
  '@context': [CONTEXT_URLS.didV1, CONTEXT_URLS.multikeyV1],
  id: DID,
  verificationMethod: (Object.keys(keys) as KeyName[]).map((name) => ({
    id: methodId(name),
    type: 'Multikey',
    controller: DID,
    publicKeyMultibase: keys[name].publicKeyMultibase(),
  })),
  assertionMethod: (Object.keys(keys) as KeyName[]).map(methodId),
};
const resolver = controllerDocumentResolver([controller]);

function credential(): Record<string, unknown> {
  return {
    '@context': [
      CONTEXT_URLS.credentialsV2,
      {
        ex: 'https://example.org/vocab#',
        DegreeCredential: 'ex:DegreeCredential',
        degree: 'ex:degree',
        title: 'ex:title',
      },
    ],
    id: 'urn:uuid:0b6b1a3e-6f9a-4d5e-8a55-0d5a3f9c2b11',
    type: ['VerifiableCredential', 'DegreeCredential'],
    issuer: DID,
    validFrom: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:subject', degree: { title: 'Bachelor of Science' } },
  };
}

const CASES: { name: string; cryptosuite: Cryptosuite; key: KeyName }[] = [
  { name: 'eddsa-rdfc-2022', cryptosuite: 'eddsa-rdfc-2022', key: 'ed' },
  { name: 'ecdsa-rdfc-2019 P-256', cryptosuite: 'ecdsa-rdfc-2019', key: 'p256' },
  { name: 'ecdsa-rdfc-2019 P-384', cryptosuite: 'ecdsa-rdfc-2019', key: 'p384' },
];
type OracleSuite = 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019';

const ours: Record<string, SecuredDocument> = {};
let results: OracleResult[];

beforeAll(async () => {
  for (const { name, cryptosuite, key } of CASES) {
    ours[name] = await signDocument(credential(), {
      signer: localSigner(keys[key]),
      cryptosuite,
      verificationMethod: methodId(key),
      created: CREATED,
    });
  }
  ours.v1 = await signDocument(
    { ...degreeCredential(), issuer: DID },
    {
      key: keys.ed,
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: methodId('ed'),
      created: CREATED,
    },
  );
  const tampered = structuredClone(ours['eddsa-rdfc-2022']) as { credentialSubject: { id: string } };
  tampered.credentialSubject.id = 'did:example:mallory';
  const tasks: OracleTask[] = [
    ...CASES.map(({ name, cryptosuite }): OracleTask => ({
      op: 'verify',
      suite: cryptosuite as OracleSuite,
      document: ours[name],
      credential: true,
    })),
    { op: 'verify', suite: 'eddsa-rdfc-2022', document: ours.v1, credential: true },
    { op: 'verify', suite: 'eddsa-rdfc-2022', document: tampered, credential: true },
    ...CASES.map(({ cryptosuite, key }): OracleTask => ({
      op: 'sign',
      suite: cryptosuite as OracleSuite,
      document: credential(),
      jwk: keys[key].privateJwk(),
      keyId: methodId(key),
      controller: DID,
      created: CREATED,
      credential: true,
    })),
  ];
  results = await runOracle(tasks, [controller]);
}, 60_000);

describe('Digital Bazaar (@digitalbazaar/vc + data-integrity) verifies Data Integrity proofs made here', () => {
  it.each(CASES.map(({ name }, index) => [name, index] as const))('%s (VC 2.0 credential)', (_name, index) => {
    expect(oracleValue(results[index])).toEqual({ verified: true });
  });

  it('eddsa-rdfc-2022 on a VC 1.1 credential (data-integrity/v2 context added)', () => {
    expect(oracleValue(results[3])).toEqual({ verified: true });
  });

  it('and rejects one once the subject is tampered with (the oracle can say no)', () => {
    expect(oracleValue(results[4])).toMatchObject({ verified: false });
  });
});

describe('Data Integrity proofs made by Digital Bazaar verify here', () => {
  it.each(CASES.map(({ name, key }, index) => [name, key, index] as const))('%s', async (name, key, index) => {
    const theirs = oracleValue(results[5 + index]) as SecuredDocument & { proof: DataIntegrityProof };
    expect(theirs.proof).toMatchObject({
      type: 'DataIntegrityProof',
      verificationMethod: methodId(key),
      created: CREATED,
    });
    const result = await verifyDocument(theirs, { resolver });
    expect(result).toMatchObject({ verified: true, proofs: [{ verified: true, controller: DID }] });
    if (key === 'ed') expect(theirs).toEqual(ours[name]); // same bytes signed, deterministic signature
    const tampered = { ...theirs, validFrom: '2024-01-02T00:00:00Z' };
    expect((await verifyDocument(tampered, { resolver })).proofs[0]?.failure?.check).toBe('signature');
  });
});
