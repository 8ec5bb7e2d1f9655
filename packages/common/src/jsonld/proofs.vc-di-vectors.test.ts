import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyPair, type Jwk } from '../crypto/index.js';
import { multibaseDecode } from '../encoding/index.js';
import { createDocumentLoader } from './document-loader.js';
import { canonicalForm, canonicalProofOptions, hashData } from './proof-data.js';
import type { DataIntegrityProof, ProofType, SecuredDocument } from './proof-types.js';
import { createProof, signDocument, type ProofOptions } from './sign.js';
import { suiteFor, type Suite } from './suites.js';
import { controllerDocumentResolver, type ControllerDocument } from './verification-method.js';
import { verifyDocument } from './verify.js';

/**
 * The W3C vc-di-eddsa and vc-di-ecdsa test vectors (vectors/vc-di-*, README there): every intermediate
 * value byte for byte (canonical document, canonical proof configuration, their hashes, the hash data),
 * the published signed credentials verify here, and what we sign from the same input is the published
 * credential (Ed25519 is deterministic; ECDSA is not, so there our signature must verify instead).
 */
const VECTORS = new URL('./vectors/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, VECTORS), 'utf8');
const readJson = <T = Record<string, unknown>>(path: string): T => JSON.parse(read(path)) as T;

const documentLoader = createDocumentLoader({
  contexts: {
    'https://www.w3.org/ns/credentials/examples/v2': readJson('contexts/credentials-examples-v2.json'),
    'https://w3id.org/citizenship/v4rc1': readJson('contexts/citizenship-v4rc1.json'),
  },
});

/** Multicodec varint prefixes of the private keys in the vectors' key files. */
const PRIVATE_KEY_PREFIXES = { Ed25519: [0x80, 0x26], 'P-256': [0x86, 0x26], 'P-384': [0x87, 0x26] } as const;

function keyPairOf(file: { publicKeyMultibase: string; privateKeyMultibase?: string; secretKeyMultibase?: string }) {
  const publicKey = KeyPair.fromMultibase(file.publicKeyMultibase);
  const privateBytes = multibaseDecode((file.privateKeyMultibase ?? file.secretKeyMultibase) as string);
  const prefix = PRIVATE_KEY_PREFIXES[publicKey.type as keyof typeof PRIVATE_KEY_PREFIXES];
  expect([...privateBytes.subarray(0, 2)]).toEqual(prefix);
  const secret = privateBytes.subarray(2);
  const key =
    publicKey.type === 'Ed25519'
      ? KeyPair.fromSeed('Ed25519', secret)
      : KeyPair.fromJwk({ ...publicKey.publicJwk(), d: secret.toString('base64url') } as Jwk);
  expect(key.publicKeyMultibase()).toBe(file.publicKeyMultibase);
  return key;
}

/** The did:key controller document of a key, with the Multikey method the vectors name. */
function didKeyDocument(publicKeyMultibase: string): ControllerDocument {
  const did = `did:key:${publicKeyMultibase}`;
  const id = `${did}#${publicKeyMultibase}`;
  return {
    id,
    verificationMethod: [{ id, type: 'Multikey', controller: did, publicKeyMultibase }],
    assertionMethod: [id],
  } as ControllerDocument & { id: string };
}

function resolverFor(...publicKeys: string[]) {
  return controllerDocumentResolver(
    publicKeys.map((key) => ({ ...didKeyDocument(key), id: `did:key:${key}` }) as ControllerDocument),
  );
}

interface VectorSet {
  name: string;
  folder: string;
  suffix: string;
  unsigned: string;
  keyFile: string;
}

const eddsa = (name: string, folder: string, suffix: string, unsigned = 'vc-di-eddsa/TestVectors/unsigned.json') => ({
  name,
  folder: `vc-di-eddsa/TestVectors/${folder}`,
  suffix,
  unsigned,
  keyFile: 'vc-di-eddsa/TestVectors/keyPair.json',
});
const ecdsa = (name: string, folder: string, suffix: string, curve: 'p256' | 'p384', unsigned = 'unsigned.json') => ({
  name,
  folder: `vc-di-ecdsa/TestVectors/${folder}`,
  suffix,
  unsigned: `vc-di-ecdsa/TestVectors/${unsigned}`,
  keyFile: `vc-di-ecdsa/TestVectors/${curve}KeyPair.json`,
});

const SETS: VectorSet[] = [
  eddsa('eddsa-rdfc-2022', 'eddsa-rdfc-2022', 'DataInt'),
  eddsa(
    'eddsa-rdfc-2022 (employment authorization)',
    'eddsa-rdfc-2022/employ',
    'DataInt',
    'vc-di-eddsa/TestVectors/employmentAuth.json',
  ),
  eddsa('eddsa-jcs-2022', 'eddsa-jcs-2022', 'JCS'),
  eddsa('Ed25519Signature2020', 'Ed25519Signature2020', 'EdSig'),
  ecdsa('ecdsa-rdfc-2019 P-256', 'ecdsa-rdfc-2019-p256', 'ECDSAP256', 'p256'),
  ecdsa(
    'ecdsa-rdfc-2019 P-256 (employment authorization)',
    'ecdsa-rdfc-2019-p256/employ',
    'ECDSAP256',
    'p256',
    'employmentAuth.json',
  ),
  ecdsa('ecdsa-rdfc-2019 P-384', 'ecdsa-rdfc-2019-p384', 'ECDSAP384', 'p384'),
  ecdsa(
    'ecdsa-rdfc-2019 P-384 (employment authorization)',
    'ecdsa-rdfc-2019-p384/employ',
    'ECDSAP384',
    'p384',
    'employmentAuth.json',
  ),
  ecdsa('ecdsa-jcs-2019 P-256', 'ecdsa-jcs-2019-p256', 'JCSECDSAP256', 'p256'),
  ecdsa('ecdsa-jcs-2019 P-384', 'ecdsa-jcs-2019-p384', 'JCSECDSAP384', 'p384'),
];

/** Vectors checked per specification: every published signed document, with its intermediate values where given. */
const vectorsRun = { 'vc-di-eddsa': 0, 'vc-di-ecdsa': 0 };
afterAll(() => {
  for (const [spec, count] of Object.entries(vectorsRun))
    console.info(`${spec}: ${count} published test vectors checked`);
});

describe.each(SETS)('W3C test vectors: $name', ({ folder, suffix, unsigned, keyFile }) => {
  const file = (stem: string, extension = 'txt'): string => `${folder}/${stem}${suffix}.${extension}`;
  const document = readJson(unsigned);
  const proofConfig = readJson<DataIntegrityProof & { '@context': unknown }>(file('proofConfig', 'json'));
  const signed = readJson<SecuredDocument & { proof: DataIntegrityProof }>(file('signed', 'json'));
  const key = keyPairOf(readJson(keyFile));
  const suite = suiteFor(proofConfig.type as ProofType, proofConfig.cryptosuite) as Suite;
  const resolver = resolverFor(key.publicKeyMultibase());
  const signedContext = signed['@context'];

  it('canonicalises the document and the proof configuration, and hashes them, byte for byte', async () => {
    const { '@context': configContext, ...config } = proofConfig;
    const hash = suite.hashFor(key.type);
    const canonicalDocument = await canonicalForm(
      { ...document, '@context': signedContext },
      suite.canonicalization,
      hash,
      {
        documentLoader,
      },
    );
    const canonicalConfig = await canonicalProofOptions(
      config as DataIntegrityProof,
      configContext,
      suite.canonicalization,
      hash,
      {
        documentLoader,
      },
    );
    expect(canonicalDocument).toBe(read(file('canonDoc')));
    expect(canonicalConfig).toBe(read(file('proofCanon')));
    const data = hashData(hash, canonicalConfig, canonicalDocument);
    const half = data.length / 2;
    expect(data.subarray(0, half).toString('hex')).toBe(read(file('proofHash')).trim());
    expect(data.subarray(half).toString('hex')).toBe(read(file('docHash')).trim());
    expect(data.toString('hex')).toBe(read(file('combinedHash')).trim());
    expect(multibaseDecode(read(file('sigBTC58')).trim()).toString('hex')).toBe(read(file('sigHex')).trim());
    expect(signed.proof.proofValue).toBe(read(file('sigBTC58')).trim());
    vectorsRun[folder.startsWith('vc-di-eddsa') ? 'vc-di-eddsa' : 'vc-di-ecdsa'] += 1;
  });

  it('verifies the published signed credential, and refuses it altered', async () => {
    expect(await verifyDocument(signed, { resolver, documentLoader })).toMatchObject({ verified: true });
    const altered = { ...signed, name: `${String(signed.name ?? 'x')}!`, description: 'altered' };
    const result = await verifyDocument(altered, { resolver, documentLoader });
    expect(result.proofs[0]?.failure?.check).toBe('signature');
  });

  it('signs the unsigned credential into the published one (or, ECDSA being randomised, into one that verifies)', async () => {
    const { '@context': _context, ...config } = proofConfig;
    const options: ProofOptions = {
      key,
      type: config.type as ProofType,
      verificationMethod: config.verificationMethod,
      proofPurpose: 'assertionMethod',
      created: config.created as string,
      documentLoader,
    };
    if (config.cryptosuite) options.cryptosuite = config.cryptosuite as ProofOptions['cryptosuite'];
    const ours = await signDocument(document, options);
    const { proofValue, ...proofWithoutValue } = ours.proof as DataIntegrityProof;
    // The JCS proofs carry the document's @context (the spec's create-proof step 2); the RDFC ones do not.
    const { proofValue: _published, ...publishedWithoutValue } = signed.proof;
    expect(proofWithoutValue).toEqual(publishedWithoutValue);
    if (key.type === 'Ed25519')
      expect(ours).toEqual(signed); // the published credential, member for member
    else expect(multibaseDecode(proofValue as string)).toHaveLength(key.type === 'P-256' ? 64 : 96);
    expect(await verifyDocument(ours, { resolver, documentLoader })).toMatchObject({ verified: true });
  });
});

describe('W3C test vectors: eddsa-rdfc-2022 proof sets and proof chains', () => {
  const folder = 'vc-di-eddsa/TestVectors/proof-set-chain';
  const pairs = Object.values(
    readJson<Record<string, { publicKeyMultibase: string; privateKeyMultibase: string }>>(
      `${folder}/multiKeyPairs.json`,
    ),
  );
  const keys = pairs.map(keyPairOf);
  const resolver = resolverFor(...pairs.map((pair) => pair.publicKeyMultibase));
  const unsigned = readJson(`${folder}/unsigned.json`);
  const keyFor = (proof: DataIntegrityProof) =>
    keys.find((key) => proof.verificationMethod.endsWith(`#${key.publicKeyMultibase()}`)) as KeyPair;

  async function addProof(document: object, config: DataIntegrityProof): Promise<SecuredDocument> {
    const options: ProofOptions = {
      key: keyFor(config),
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: config.verificationMethod,
      created: config.created as string,
      documentLoader,
    };
    if (config.id !== undefined) options.id = config.id;
    if (config.previousProof !== undefined) options.previousProof = config.previousProof;
    const proof = await createProof(document, options);
    const existing = (document as SecuredDocument).proof;
    return { ...document, proof: existing === undefined ? proof : [...[existing].flat(), proof] } as SecuredDocument;
  }

  it.each(['signedProofSet1', 'signedProofSet2', 'signedProofChain1', 'signedProofChain2'])(
    '%s verifies, every proof of it',
    async (name) => {
      const document = readJson<SecuredDocument>(`${folder}/${name}.json`);
      const result = await verifyDocument(document, { resolver, documentLoader });
      expect(result.proofs.map((proof) => proof.failure)).toEqual(result.proofs.map(() => undefined));
      expect(result.verified).toBe(true);
      expect(result.proofs.length).toBe([document.proof].flat().length);
      vectorsRun['vc-di-eddsa'] += 1;
    },
  );

  it('reproduces the published proof set and proof chain byte for byte', async () => {
    const set1 = await addProof(unsigned, readJson(`${folder}/proofSetConfig1.json`));
    const set2 = await addProof(set1, readJson(`${folder}/proofSetConfig2.json`));
    expect(set1).toEqual(readJson(`${folder}/signedProofSet1.json`));
    expect(set2).toEqual(readJson(`${folder}/signedProofSet2.json`));
    const chain1 = await addProof(set2, readJson(`${folder}/proofChainConfig1.json`));
    const chain2 = await addProof(chain1, readJson(`${folder}/proofChainConfig2.json`));
    expect(chain1).toEqual(readJson(`${folder}/signedProofChain1.json`));
    expect(chain2).toEqual(readJson(`${folder}/signedProofChain2.json`));
  });

  it('refuses a chained proof whose previous proof is missing, or that a removed predecessor no longer covers', async () => {
    const chain = readJson<SecuredDocument & { proof: DataIntegrityProof[] }>(`${folder}/signedProofChain2.json`);
    const withoutFirst = { ...chain, proof: chain.proof.slice(1) };
    const result = await verifyDocument(withoutFirst, { resolver, documentLoader });
    expect(result.proofs.find((proof) => proof.index === 1)?.failure).toMatchObject({
      check: 'previous-proof',
      message: expect.stringMatching(/names no proof/),
    });
    // The predecessor's value changed: the chained proof (which covers it) fails, the untouched set proofs hold.
    const tampered = structuredClone(chain);
    (tampered.proof[2] as DataIntegrityProof).created = '2023-02-26T22:06:39Z';
    const checks = (await verifyDocument(tampered, { resolver, documentLoader })).proofs.map(
      (proof) => proof.failure?.check,
    );
    expect(checks).toEqual([undefined, undefined, 'signature', 'signature']);
  });
});
