import { KeyPair } from '../crypto/index.js';
import { CONTEXT_URLS } from './contexts.js';
import type { ControllerDocument } from './verification-method.js';

/** Deterministic keys and documents shared by the jsonld tests and the jsonld benchmark (`@anchor/common/jsonld/fixtures`). */
export const ISSUER_DID = 'did:example:issuer';
export const KEY_2020_ID = `${ISSUER_DID}#key-2020`;
export const KEY_2018_ID = `${ISSUER_DID}#key-2018`;
export const ISSUER_SEED = Buffer.alloc(32, 7);
export const issuerKey = KeyPair.fromSeed('Ed25519', ISSUER_SEED);

/** A DID document as the Digital Bazaar suites expect it: absolute ids, did/v1 first, both key types. */
export function issuerDidDocument(key: KeyPair = issuerKey): ControllerDocument {
  return {
    '@context': [CONTEXT_URLS.didV1, CONTEXT_URLS.ed25519Signature2020V1, CONTEXT_URLS.ed25519Signature2018V1],
    id: ISSUER_DID,
    verificationMethod: [
      {
        id: KEY_2020_ID,
        type: 'Ed25519VerificationKey2020',
        controller: ISSUER_DID,
        publicKeyMultibase: key.publicKeyMultibase(),
      },
      {
        id: KEY_2018_ID,
        type: 'Ed25519VerificationKey2018',
        controller: ISSUER_DID,
        publicKeyBase58: key.publicKeyBase58(),
      },
    ],
    assertionMethod: [KEY_2020_ID, KEY_2018_ID],
    authentication: [KEY_2020_ID],
  };
}

const COURSE_TITLES = [
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
];

/**
 * A university-degree credential (credentials/v1, the 2020 suite context and an inline vocabulary): ~1.6 KB
 * with the tests' 7 courses, ~2 KB with the benchmark's 12 (at most 12).
 */
export function degreeCredential(issuer: string = ISSUER_DID, courses = 7): Record<string, unknown> {
  return {
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
    issuer,
    issuanceDate: '2024-03-01T19:23:24Z',
    credentialSubject: {
      id: 'did:example:ebfeb1f712ebc6f1c276e12ec21',
      name: 'Jayden Doe',
      degree: {
        type: 'BachelorDegree',
        name: 'Bachelor of Science and Arts',
        awardedBy: 'https://example.edu/faculty/science',
      },
      courses: COURSE_TITLES.slice(0, courses).map((title, index) => ({
        type: 'Course',
        title,
        credits: 5 + index,
        grade: index % 2 === 0 ? 'A' : 'B+',
      })),
    },
  };
}

/** An anchor credential shaped as Orb builds it (orb.md §2.4), before any proof. */
export function anchorCredential(): Record<string, unknown> {
  return {
    '@context': [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.activityAnchorsV1, CONTEXT_URLS.ed25519Signature2020V1],
    id: 'https://orb.domain1.com/vc/1e8b1c46-0a3d-4f5a-9f1e-2f6f1b8d2a11',
    type: ['VerifiableCredential', 'AnchorCredential'],
    issuer: 'https://orb.domain1.com/services/orb',
    issuanceDate: '2022-03-15T21:21:54.621Z',
    credentialSubject: {
      href: 'hl:uEiCJWtyh4FzUQVgDwcUVzZzRNNn7L7GJqL0cFxTR4MoUgQ',
      anchor: 'hl:uEiBu8Hq9v0OVhYV0mRN3pSvVTeSa8qqV2rh0sGmfxJ8-FQ',
      profile: 'https://w3id.org/orb#v0',
      rel: 'linkset',
      type: ['AnchorLink'],
    },
  };
}
