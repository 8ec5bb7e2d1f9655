/**
 * The credentials a user meets every day, canonicalised offline in safe mode: the W3C data model's examples
 * (v1 with its ODRL import, v2), citizenship, vaccination, the revocation and status lists, and the trustbloc
 * examples the Go services' deployments load. Each term must map through the bundled contexts, or it fails.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from './canonicalize.js';
import { CONTEXT_URLS } from './contexts.js';

const V1 = CONTEXT_URLS.credentialsV1;
const V2 = CONTEXT_URLS.credentialsV2;

const cases: Array<[what: string, document: Record<string, unknown>, expected: RegExp]> = [
  [
    'a UniversityDegreeCredential with the W3C examples v1 context',
    {
      '@context': [V1, CONTEXT_URLS.credentialsExamplesV1],
      id: 'http://example.edu/credentials/1872',
      type: ['VerifiableCredential', 'AlumniCredential'],
      issuer: 'https://example.edu/issuers/565049',
      issuanceDate: '2010-01-01T19:23:24Z',
      credentialSubject: {
        id: 'did:example:ebfeb1f712ebc6f1c276e12ec21',
        degree: { type: 'BachelorDegree', name: 'Bachelor of Science and Arts' },
        alumniOf: 'Example University',
      },
    },
    /<https:\/\/example.org\/examples#BachelorDegree>/,
  ],
  [
    'a terms-of-use policy (ODRL through the examples v1 context)',
    {
      '@context': [V1, CONTEXT_URLS.credentialsExamplesV1],
      type: ['VerifiableCredential'],
      issuer: 'did:example:issuer',
      issuanceDate: '2010-01-01T19:23:24Z',
      credentialSubject: { id: 'did:example:subject' },
      termsOfUse: { type: 'IssuerPolicy', id: 'http://example.com/policies/credential/4', prohibition: [] },
    },
    /<https:\/\/example.org\/examples#IssuerPolicy>/,
  ],
  [
    'a v2 credential with the W3C examples v2 context',
    {
      '@context': [V2, CONTEXT_URLS.credentialsExamplesV2],
      type: ['VerifiableCredential', 'ExampleDegreeCredential'],
      issuer: 'did:example:issuer',
      validFrom: '2010-01-01T19:23:24Z',
      credentialSubject: { id: 'did:example:subject', degree: { type: 'ExampleBachelorDegree', name: 'BSc' } },
    },
    /<https:\/\/www.w3.org\/ns\/credentials\/examples#ExampleBachelorDegree>/,
  ],
  [
    'a PermanentResidentCard with the citizenship v1 context',
    {
      '@context': [V1, CONTEXT_URLS.citizenshipV1],
      type: ['VerifiableCredential', 'PermanentResidentCard'],
      issuer: 'did:example:issuer',
      issuanceDate: '2019-12-03T12:19:52Z',
      credentialSubject: {
        id: 'did:example:subject',
        type: ['PermanentResident', 'Person'],
        givenName: 'JOHN',
        familyName: 'SMITH',
        birthDate: '1958-07-17',
      },
    },
    /<https:\/\/w3id.org\/citizenship#PermanentResidentCard>/,
  ],
  [
    'a VaccinationCertificate with the vaccination v1 context',
    {
      '@context': [V1, CONTEXT_URLS.vaccinationV1],
      type: ['VerifiableCredential', 'VaccinationCertificate'],
      issuer: 'did:example:issuer',
      issuanceDate: '2019-12-03T12:19:52Z',
      credentialSubject: { type: 'VaccinationEvent', batchNumber: '1183738569', countryOfVaccination: 'NZ' },
    },
    /<https:\/\/w3id.org\/vaccination#VaccinationCertificate>/,
  ],
  [
    'a credential with a RevocationList2020Status entry',
    {
      '@context': [V1, CONTEXT_URLS.revocationList2020V1],
      type: ['VerifiableCredential'],
      issuer: 'did:example:issuer',
      issuanceDate: '2019-12-03T12:19:52Z',
      credentialSubject: { id: 'did:example:subject' },
      credentialStatus: {
        id: 'https://example.com/status/1#3',
        type: 'RevocationList2020Status',
        revocationListIndex: '3',
        revocationListCredential: 'https://example.com/status/1',
      },
    },
    /RevocationList2020Status/,
  ],
  [
    'a credential with the trustbloc examples v1 context (the trustbloc era)',
    {
      '@context': [V1, CONTEXT_URLS.trustblocExamplesV1],
      type: ['VerifiableCredential'],
      issuer: 'did:example:issuer',
      issuanceDate: '2019-12-03T12:19:52Z',
      credentialSubject: { id: 'did:example:subject', image: 'https://example.com/a.png' },
      credentialStatus: { id: 'https://example.com/status/1', type: 'CredentialStatusList2017' },
    },
    /<https:\/\/example.org\/examples#CredentialStatusList2017>/,
  ],
];

describe('everyday credential contexts, bundled', () => {
  for (const [what, document, expected] of cases)
    it(`canonicalises ${what} in safe mode, offline`, async () => {
      expect(await canonicalize(document)).toMatch(expected);
    });
});
