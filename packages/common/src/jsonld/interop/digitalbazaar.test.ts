import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalize } from '../canonicalize.js';
import { CONTEXT_URLS } from '../contexts.js';
import {
  ISSUER_DID,
  ISSUER_SEED,
  KEY_2018_ID,
  KEY_2020_ID,
  degreeCredential,
  issuerDidDocument,
  issuerKey,
} from '../fixtures.js';
import { activeContextSharing, dictionaryNodeMaps } from '../jsonld-engine.js';
import { signDocument } from '../sign.js';
import { controllerDocumentResolver } from '../verification-method.js';
import { verifyDocument } from '../verify.js';
import { oracleValue, runOracle, type OracleResult, type OracleTask } from './oracle.test-helpers.js';

/**
 * Interoperability with the independent Digital Bazaar implementation, run in a separate process on a
 * pristine jsonld.js: proofs made here verify there and the other way round, for both Ed25519 suites, and
 * canonical N-Quads agree on a corpus that exercises what the active-context sharing touches
 * (type-scoped contexts, nested nodes, property-scoped contexts, @graph containers, @json, lists).
 */
const corpus: Record<string, unknown> = {
  'degree credential (v1, inline context, list)': degreeCredential(),
  'credential v2 with nested typed nodes': {
    '@context': [
      CONTEXT_URLS.credentialsV2,
      {
        ex: 'https://example.org/vocab#',
        ExampleCredential: 'ex:ExampleCredential',
        Thing: 'ex:Thing',
        part: { '@id': 'ex:part', '@type': '@id' },
        label: 'ex:label',
      },
    ],
    type: ['VerifiableCredential', 'ExampleCredential'],
    issuer: { id: 'did:example:issuer', name: 'Example Issuer' },
    validFrom: '2024-01-01T00:00:00Z',
    credentialSubject: {
      id: 'did:example:subject',
      label: 'outer',
      part: [
        { id: 'https://example.org/p/1', type: 'Thing', label: 'inner 1' },
        { type: 'Thing', label: 'inner 2' },
      ],
    },
    credentialStatus: {
      id: 'https://example.org/status/1#3',
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '3',
      statusListCredential: 'https://example.org/status/1',
    },
  },
  'DID document': issuerDidDocument(),
  'proof-carrying credential (proof as @graph)': {
    ...degreeCredential(),
    proof: {
      type: 'Ed25519Signature2020',
      created: '2024-03-01T19:23:24Z',
      verificationMethod: KEY_2020_ID,
      proofPurpose: 'assertionMethod',
      proofValue: 'z3FXQjecWufY46',
    },
  },
  'JsonWebKey2020 with @json publicKeyJwk': {
    '@context': [CONTEXT_URLS.didV1, CONTEXT_URLS.jws2020V1],
    id: 'did:example:jwk',
    verificationMethod: [
      {
        id: 'did:example:jwk#k',
        type: 'JsonWebKey2020',
        controller: 'did:example:jwk',
        publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
      },
    ],
  },
  'ActivityStreams Offer with anchors context': {
    '@context': [CONTEXT_URLS.activityStreams, CONTEXT_URLS.activityAnchorsV1],
    id: 'https://orb.domain1.com/services/orb/activities/77bcd005-abb6-433d-a889-18cc1ab1e8a6',
    type: 'Offer',
    actor: 'https://orb.domain1.com/services/orb',
    to: ['https://orb.domain2.com/services/orb', 'https://www.w3.org/ns/activitystreams#Public'],
    target: 'https://w3id.org/activityanchors#AnchorWitness',
    startTime: '2022-03-15T21:21:54.621Z',
    endTime: '2022-03-15T21:22:54.621Z',
    object: { type: 'AnchorEvent', url: 'hl:uEiBu8Hq9v0OVhYV0mRN3pSvVTeSa8qqV2rh0sGmfxJ8-FQ' },
  },
  'status list 2021 credential': {
    '@context': [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.statusList2021V1],
    id: 'https://example.com/credentials/status/3',
    type: ['VerifiableCredential', 'StatusList2021Credential'],
    issuer: 'did:example:12345',
    issuanceDate: '2021-04-05T14:27:40Z',
    credentialSubject: {
      id: 'https://example.com/status/3#list',
      type: 'StatusList2021',
      statusPurpose: 'revocation',
      encodedList: 'H4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA',
    },
  },
  'data integrity proof (di v2)': {
    '@context': [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.dataIntegrityV2],
    type: ['VerifiableCredential'],
    issuer: 'did:example:issuer',
    issuanceDate: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:subject' },
    proof: {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      created: '2024-01-01T00:00:00Z',
      verificationMethod: KEY_2020_ID,
      proofPurpose: 'assertionMethod',
      proofValue: 'z5C5b',
    },
  },
  // The transparency log's bench credential: one subject map of new IRIs, eight blank-node tags (node maps).
  'credential with blank-node tags under ActivityStreams': {
    '@context': [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.activityStreams],
    id: 'https://node1.example.com/vc/interop-1',
    type: ['VerifiableCredential'],
    issuer: 'https://node1.example.com/services/node',
    issuanceDate: '2024-03-01T19:23:24.123Z',
    credentialSubject: {
      id: 'https://node1.example.com/anchors/interop-1',
      type: 'Note',
      name: 'Anchor batch 1',
      tag: Array.from({ length: 8 }, (_, k) => ({
        type: 'Link',
        href: `hl:uEiB1x${k}oA1vVq9eN6bG9z2cP0bJzV1kXwq8C1m0Q8cY2a4bZ3w`,
        name: `did:node:EiD${k}1aBcDeF`,
        mediaType: 'application/json',
      })),
    },
  },
};

/** Scoped contexts in every combination the cached-context keying has to get right. */
const scopedVocabulary = {
  '@version': 1.1,
  ex: 'https://example.org/scoped#',
  id: '@id',
  type: '@type',
  Outer: { '@id': 'ex:Outer', '@context': { label: 'ex:outerLabel', child: { '@id': 'ex:child', '@type': '@id' } } },
  Sticky: { '@id': 'ex:Sticky', '@context': { '@propagate': true, label: 'ex:stickyLabel' } },
  Inner: { '@id': 'ex:Inner', '@context': { label: 'ex:innerLabel', note: 'ex:innerNote' } },
  label: 'ex:label',
  note: 'ex:note',
  child: { '@id': 'ex:child', '@type': '@id' },
  withScope: { '@id': 'ex:withScope', '@context': { label: 'ex:propertyScopedLabel' } },
};
for (const [name, document] of Object.entries({
  'type-scoped, non-propagated: nested nodes revert': {
    '@context': scopedVocabulary,
    id: 'https://example.org/1',
    type: 'Outer',
    label: 'outer',
    child: {
      id: 'https://example.org/2',
      label: 'reverted',
      child: { type: 'Inner', label: 'inner', note: 'n', child: { label: 'reverted again' } },
    },
  },
  'type-scoped, propagated: nested nodes keep it': {
    '@context': scopedVocabulary,
    type: 'Sticky',
    label: 'sticky',
    child: {
      label: 'still sticky',
      child: { type: 'Inner', label: 'inner wins', child: { label: 'sticky once more' } },
    },
  },
  'property-scoped and embedded contexts': {
    '@context': scopedVocabulary,
    type: ['Outer', 'Inner'],
    label: 'both types',
    note: 'only Inner defines this as ex:innerNote',
    withScope: {
      label: 'property scoped',
      child: { '@context': { label: 'ex:embeddedLabel' }, label: 'embedded', child: { label: 'plain' } },
    },
  },
  'same vocabulary, other order': {
    '@context': scopedVocabulary,
    child: [
      { type: 'Inner', label: 'a' },
      { type: 'Outer', label: 'b', child: { type: 'Sticky', label: 'c', child: { label: 'd' } } },
      { label: 'e' },
    ],
  },
})) {
  corpus[name] = document;
}

const resolver = controllerDocumentResolver([issuerDidDocument()]);
let ours: {
  signed2020: Record<string, unknown>;
  signed2018: Record<string, unknown>;
  withDomain: Record<string, unknown>;
};
let results: OracleResult[];
let corpusNames: string[];

beforeAll(async () => {
  ours = {
    signed2020: await signDocument(degreeCredential(), { key: issuerKey, verificationMethod: KEY_2020_ID }),
    signed2018: await signDocument(degreeCredential(), {
      key: issuerKey,
      verificationMethod: KEY_2018_ID,
      type: 'Ed25519Signature2018',
    }),
    withDomain: await signDocument(degreeCredential(), {
      key: issuerKey,
      verificationMethod: KEY_2020_ID,
      domain: 'https://vct.example.com/maple2020',
    }),
  };
  const tampered = structuredClone(ours.signed2020) as { credentialSubject: { name: string } };
  tampered.credentialSubject.name = 'Mallory Doe';
  corpusNames = Object.keys(corpus);
  const signing = {
    seedHex: ISSUER_SEED.toString('hex'),
    controller: ISSUER_DID,
    credential: true,
    document: degreeCredential(),
  };
  const tasks: OracleTask[] = [
    { op: 'verify', suite: '2020', document: ours.signed2020, credential: true },
    { op: 'verify', suite: '2018', document: ours.signed2018, credential: true },
    { op: 'verify', suite: '2020', document: ours.withDomain, credential: true },
    { op: 'verify', suite: '2020', document: tampered, credential: true },
    { op: 'sign', suite: '2020', keyId: KEY_2020_ID, ...signing },
    { op: 'sign', suite: '2018', keyId: KEY_2018_ID, ...signing },
    { op: 'sign', suite: '2020', keyId: KEY_2020_ID, ...signing, domain: 'https://vct.example.com/maple2020' },
    ...corpusNames.map((name): OracleTask => ({ op: 'canonize', document: corpus[name] })),
  ];
  results = await runOracle(tasks, [issuerDidDocument()]);
}, 60_000);

describe('Digital Bazaar verifies proofs made here', () => {
  it('Ed25519Signature2020 (vc.verifyCredential, issuer = key controller)', () => {
    expect(oracleValue(results[0])).toEqual({ verified: true });
  });

  it('Ed25519Signature2018 (detached JWS, b64 false)', () => {
    expect(oracleValue(results[1])).toEqual({ verified: true });
  });

  it('a proof carrying a domain', () => {
    expect(oracleValue(results[2])).toEqual({ verified: true });
  });

  it('and rejects one of them once the subject is tampered with (the oracle can say no)', () => {
    expect(oracleValue(results[3])).toMatchObject({ verified: false });
  });
});

describe('proofs made by Digital Bazaar verify here', () => {
  it.each([
    ['Ed25519Signature2020', 4],
    ['Ed25519Signature2018', 5],
    ['Ed25519Signature2020 with a domain', 6],
  ])('%s', async (_name, index) => {
    const signed = oracleValue(results[index]) as Record<string, unknown> & { proof: { type: string } };
    const result = await verifyDocument(signed, { resolver });
    expect(result).toMatchObject({ verified: true, proofs: [{ verified: true, controller: ISSUER_DID }] });
    const tampered = { ...signed, issuanceDate: '2024-03-02T19:23:24Z' };
    expect((await verifyDocument(tampered, { resolver })).proofs[0]?.failure?.check).toBe('signature');
  });

  it('the domain one only with the domain expected', async () => {
    const signed = oracleValue(results[6]) as Record<string, unknown>;
    expect((await verifyDocument(signed, { resolver, domain: 'https://vct.example.com/maple2020' })).verified).toBe(
      true,
    );
    expect(
      (await verifyDocument(signed, { resolver, domain: 'https://vct.example.com/other' })).proofs[0]?.failure?.check,
    ).toBe('domain');
  });
});

describe('canonical N-Quads agree with a pristine jsonld.js', () => {
  it('with the active-context sharing and the dictionary node maps in force here', () => {
    expect(activeContextSharing).toBe(true);
    expect(dictionaryNodeMaps).toBe(true);
  });

  it('on every document of the corpus, whatever the order (cached contexts carry no state between calls)', async () => {
    const orders = [corpusNames, [...corpusNames].reverse(), [...corpusNames.slice(3), ...corpusNames.slice(0, 3)]];
    for (const order of orders) {
      for (const name of order) {
        const theirs = oracleValue(results[7 + corpusNames.indexOf(name)]);
        expect(await canonicalize(corpus[name]), name).toBe(theirs);
      }
    }
  });
});
