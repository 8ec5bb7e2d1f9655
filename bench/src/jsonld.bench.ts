/**
 * JSON-LD: URDNA2015 canonicalisations of a ~2 KB credential, and Ed25519Signature2020 proof creation and
 * verification on it with contexts cached, held against the ≥ 1,000 creates/s target. Each proof
 * canonicalises the credential and the proof options, so it is bounded by canonicalisation; the figures
 * are single-threaded.
 */
import { KeyPair } from '@anchor/common/crypto';
import {
  CONTEXT_URLS,
  activeContextSharing,
  canonicalize,
  controllerDocumentResolver,
  signDocument,
  verifyDocument,
  type ProofOptions,
} from '@anchor/common/jsonld';
import { atLeast, rate, report, summary } from './lib/report.js';

const SECTION = 'jsonld';
const ISSUER = 'did:example:issuer';
const KEY_ID = `${ISSUER}#key-1`;
const key = KeyPair.fromSeed('Ed25519', Buffer.alloc(32, 7));

const credential = {
  '@context': [
    CONTEXT_URLS.credentialsV1,
    CONTEXT_URLS.ed25519Signature2020V1,
    {
      ex: 'https://example.org/vocab#',
      UniversityDegreeCredential: 'ex:UniversityDegreeCredential',
      BachelorDegree: 'ex:BachelorDegree',
      Course: 'ex:Course',
      degree: 'ex:degree',
      name: 'ex:name',
      courses: 'ex:courses',
      title: 'ex:title',
      credits: { '@id': 'ex:credits', '@type': 'http://www.w3.org/2001/XMLSchema#integer' },
      grade: 'ex:grade',
      awardedBy: { '@id': 'ex:awardedBy', '@type': '@id' },
    },
  ],
  id: 'https://example.edu/credentials/1872',
  type: ['VerifiableCredential', 'UniversityDegreeCredential'],
  issuer: ISSUER,
  issuanceDate: '2024-03-01T19:23:24Z',
  credentialSubject: {
    id: 'did:example:ebfeb1f712ebc6f1c276e12ec21',
    name: 'Jayden Doe',
    degree: {
      type: 'BachelorDegree',
      name: 'Bachelor of Science and Arts',
      awardedBy: 'https://example.edu/faculty/science',
    },
    courses: [
      'Distributed systems and their failure modes',
      'Applied cryptography and key management',
      'Linked data and the semantic web',
      'Merkle trees and transparency logs',
      'Consensus protocols, old and new',
      'Federated social networks',
      'Software engineering in the large',
      'Operating systems: processes, memory and files',
      'Computer networks and the protocols of the internet',
      'Databases, transactions and recovery',
      'Compilers: from source text to machine code',
      'Human factors in security engineering',
    ].map((title, index) => ({ type: 'Course', title, credits: 5 + index, grade: index % 2 === 0 ? 'A' : 'B+' })),
  },
};

const resolver = controllerDocumentResolver([
  {
    '@context': [CONTEXT_URLS.didV1, CONTEXT_URLS.ed25519Signature2020V1],
    id: ISSUER,
    verificationMethod: [
      {
        id: KEY_ID,
        type: 'Ed25519VerificationKey2020',
        controller: ISSUER,
        publicKeyMultibase: key.publicKeyMultibase(),
      },
    ],
    assertionMethod: [KEY_ID],
  },
]);
const proofOptions: ProofOptions = { key, verificationMethod: KEY_ID, domain: 'https://vct.example.com/maple2020' };

const size = Buffer.byteLength(JSON.stringify(credential));
const signed = await signDocument(credential, proofOptions);
if (!(await verifyDocument(signed, { resolver })).verified) throw new Error('benchmark credential does not verify');

console.log(
  `jsonld.js active-context sharing: ${activeContextSharing ? 'on' : 'OFF (jsonld.js internals changed; expect ~1,000 canonicalisations/s)'}`,
);
report(SECTION, 'credential size', size, 'bytes');
report(SECTION, 'URDNA2015 canonicalisations of the credential', await rate(() => canonicalize(credential)), 'ops/s');
report(
  SECTION,
  'Ed25519Signature2020 create',
  await rate(() => signDocument(credential, proofOptions)),
  'ops/s',
  atLeast(1_000),
);
report(SECTION, 'Ed25519Signature2020 verify', await rate(() => verifyDocument(signed, { resolver })), 'ops/s');
summary();
