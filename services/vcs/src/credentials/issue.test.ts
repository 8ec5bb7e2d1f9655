import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CREDENTIALS_V1,
  credentialV1,
  credentialV2,
  issue,
  issuerProfile,
  startTestVcs,
  type TestVcs,
} from '../vcs.test-helpers.js';

const SUITES = [
  ['Ed25519Signature2018', {}, 'jws'],
  ['Ed25519Signature2020', {}, 'proofValue'],
  ['JsonWebSignature2020', {}, 'jws'],
  ['JsonWebSignature2020', { didKeyType: 'P256' }, 'jws'],
  ['eddsa-rdfc-2022', {}, 'proofValue'],
  ['ecdsa-rdfc-2019', {}, 'proofValue'],
] as const;

describe('issue and compose', () => {
  let vcs: TestVcs;
  beforeAll(async () => {
    vcs = await startTestVcs();
    await issuerProfile(vcs, 'issuer');
    await issuerProfile(vcs, 'other');
  });
  afterAll(async () => vcs?.stop());

  it.each(SUITES)(
    'issues with %s %j: 201, proof in %s, status entry, and the credential verifies',
    async (suite, fields, member) => {
      const name = `suite-${suite}-${Object.keys(fields).length}`;
      const profile = await issuerProfile(vcs, name, { signatureType: suite, ...fields });
      const reply = await vcs.call('POST', `/${name}/credentials/issueCredential`, { credential: credentialV1() });
      expect(reply.status).toBe(201);
      const signed = reply.body;
      expect(signed.issuer).toBe(profile.did);
      expect(signed.proof).toMatchObject({ verificationMethod: profile.creator, proofPurpose: 'assertionMethod' });
      expect(typeof signed.proof[member]).toBe('string');
      if (suite.includes('rdfc'))
        expect(signed.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: suite });
      else expect(signed.proof.type).toBe(suite);
      expect(signed.credentialStatus).toMatchObject({ type: 'StatusList2021Entry', statusPurpose: 'revocation' });
      const verified = await vcs.call('POST', '/verifier/credentials', {
        verifiableCredential: signed,
        options: { checks: ['proof', 'status'] },
      });
      expect(verified).toMatchObject({ status: 200, body: { checks: ['proof', 'status'] } });
    },
  );

  it('gives a VC 2.0 credential a Bitstring Status List entry and the issuer as {id, name}', async () => {
    const signed = await issue(vcs, 'issuer', credentialV2());
    expect(signed.credentialStatus).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' });
    expect(signed.issuer).toMatchObject({ name: 'issuer' });
    const verified = await vcs.call('POST', '/verifier/credentials', {
      verifiableCredential: signed,
      options: { checks: ['proof', 'status'] },
    });
    expect(verified.status).toBe(200);
  });

  it('issues with the W3C examples context (and its ODRL import) and the citizenship context, and verifies', async () => {
    const examples = credentialV1({
      '@context': [CREDENTIALS_V1, 'https://www.w3.org/2018/credentials/examples/v1'],
      type: ['VerifiableCredential', 'UniversityDegreeCredential'],
      credentialSubject: { id: 'did:example:alumnus', degree: { type: 'BachelorDegree', name: 'BSc' } },
    });
    const citizenship = credentialV1({
      '@context': [CREDENTIALS_V1, 'https://w3id.org/citizenship/v1'],
      type: ['VerifiableCredential', 'PermanentResidentCard'],
      credentialSubject: { id: 'did:example:resident', type: ['PermanentResident', 'Person'], givenName: 'JOHN' },
    });
    for (const credential of [examples, citizenship]) {
      const signed = await issue(vcs, 'issuer', credential);
      const verified = await vcs.call('POST', '/verifier/credentials', {
        verifiableCredential: signed,
        options: { checks: ['proof'] },
      });
      expect(verified).toMatchObject({ status: 200, body: { checks: ['proof'] } });
    }
  });

  it("refuses an issuer that is not the profile's DID, keeps its own, and overwrites when the profile says so", async () => {
    // The proof is made by the profile's key: a credential naming anyone else as its issuer would be a forgery.
    const own = (await vcs.call('GET', '/profile/issuer')).body.did as string;
    const victim = (await vcs.call('GET', '/profile/other')).body.did as string;
    for (const issuer of [victim, { id: victim }, 'did:example:someone', 'https://example.com/issuer']) {
      const reply = await vcs.call('POST', '/issuer/credentials/issueCredential', {
        credential: credentialV1({ issuer }),
      });
      expect(reply.status, JSON.stringify(issuer)).toBe(400);
      expect(reply.body.message).toMatch(
        /^credential\.issuer ".+" is not the DID of profile issuer \(did:key:.+\): a profile signs only as its own DID$/,
      );
    }
    expect((await issue(vcs, 'issuer', credentialV1({ issuer: own }))).issuer).toBe(own);
    const profile = await issuerProfile(vcs, 'overwriting', { overwriteIssuer: true });
    const overwritten = await issue(vcs, 'overwriting', credentialV1({ issuer: 'did:example:someone' }));
    expect(overwritten.issuer).toBe(profile.did);
    const composed = await vcs.call('POST', '/issuer/credentials/composeAndIssueCredential', { issuer: victim });
    expect(composed.status).toBe(400);
  });

  it('leaves the status out when the profile disables it, and adds an id only when needed', async () => {
    await issuerProfile(vcs, 'nostatus', { disableVCStatus: true });
    const { id: _id, ...withoutId } = credentialV1();
    const signed = await issue(vcs, 'nostatus', withoutId);
    expect(signed.credentialStatus).toBeUndefined();
    expect(signed.id).toBeUndefined();
    const withStatus = await issue(vcs, 'issuer', withoutId);
    expect(withStatus.id).toMatch(/^urn:uuid:/);
  });

  it('answers 404 for an unknown profile and 409 for a credential id issued before', async () => {
    expect((await vcs.call('POST', '/nobody/credentials/issueCredential', { credential: credentialV1() })).status).toBe(
      404,
    );
    const credential = credentialV1();
    await issue(vcs, 'issuer', credential);
    const again = await vcs.call('POST', '/issuer/credentials/issueCredential', { credential });
    expect(again.status).toBe(409);
  });

  it.each([
    [{}, /credential/],
    [{ credential: 'text' }, /credential/],
    [{ credential: { ...credentialV1(), '@context': undefined } }, /credential.@context is required/],
    [{ credential: { ...credentialV1(), '@context': ['https://example.com/ctx'] } }, /must begin with/],
    [{ credential: { ...credentialV1(), type: ['Degree'] } }, /credential.type must include VerifiableCredential/],
    [{ credential: { ...credentialV1(), credentialSubject: undefined } }, /credential.credentialSubject is required/],
    [{ credential: { ...credentialV1(), issuanceDate: undefined } }, /credential.issuanceDate is required/],
    [
      { credential: { ...credentialV1(), issuanceDate: '2024-13-01' } },
      /credential.issuanceDate must be an ISO 8601 date-time/,
    ],
    [
      { credential: { ...credentialV1(), expirationDate: '2020-01-01T00:00:00Z' } },
      /credential.expirationDate is before credential.issuanceDate/,
    ],
    [{ credential: { ...credentialV1(), issuer: 'not a uri' } }, /credential.issuer must be a URI/],
    [{ credential: { ...credentialV1(), id: 'no' } }, /credential.id must be a URI/],
    [
      { credential: { ...credentialV1(), credentialSubject: { id: 'did:example:a', undefinedTerm: 1 } } },
      /undefinedTerm/,
    ],
    [
      { credential: credentialV1(), options: { proofPurpose: 'keyAgreement' } },
      /proofPurpose "keyAgreement" is not one of/,
    ],
    [{ credential: credentialV1(), options: { verificationMethod: 'nothash' } }, /verificationMethod/],
    [
      {
        credential: credentialV1(),
        options: {
          verificationMethod:
            'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        },
      },
      /is not the key of profile issuer/,
    ],
    [{ credential: credentialV1(), options: { created: 'yesterday' } }, /created/],
  ])('refuses a bad issue request %# with 400 naming the field', async (body, message) => {
    const reply = await vcs.call('POST', '/issuer/credentials/issueCredential', body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(message);
  });

  it('counts issued credentials and verifications in /metrics (vcs_ prefix) and serves /loglevels', async () => {
    await issue(vcs, 'issuer', credentialV1());
    const metrics = await vcs.call('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^vcs_credentials_issued\{profile="issuer"\} [1-9]/m);
    expect(metrics.body).toMatch(/^vcs_issue_seconds_count [1-9]/m);
    expect(metrics.body).toMatch(/^vcs_verifications\{subject="credential",outcome="verified"\} [1-9]/m);
    expect((await vcs.call('GET', '/loglevels')).status).toBe(200);
  });

  it('refuses a malformed or missing JSON body with 400', async () => {
    const malformed = await vcs.call('POST', '/issuer/credentials/issueCredential', '{"credential":', {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/malformed JSON/);
    const empty = await vcs.call('POST', '/verifier/credentials', '', { 'content-type': 'application/json' });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/a JSON body is required/);
  });

  it('honours options: verificationMethod (over assertionMethod), purpose, created, challenge, domain', async () => {
    const profile = (await vcs.call('GET', '/profile/issuer')).body;
    const signed = await issue(vcs, 'issuer', credentialV1(), {
      assertionMethod: 'did:example:ignored#key',
      verificationMethod: profile.creator,
      proofPurpose: 'authentication',
      created: '2024-02-02T02:02:02Z',
      challenge: 'c-1',
      domain: 'example.org',
    });
    expect(signed.proof).toMatchObject({
      proofPurpose: 'authentication',
      created: '2024-02-02T02:02:02Z',
      challenge: 'c-1',
      domain: 'example.org',
    });
  });

  it('composes a credential from its parts: VerifiableCredential first, subject id, claims, evidence, termsOfUse', async () => {
    const composer = await issuerProfile(vcs, 'composer', { signatureType: 'JsonWebSignature2020' });
    const reply = await vcs.call('POST', '/composer/credentials/composeAndIssueCredential', {
      issuer: composer.did,
      subject: 'did:example:alice',
      types: ['UniversityDegreeCredential'],
      issuanceDate: '2024-01-01T00:00:00Z',
      expirationDate: '2030-01-01T00:00:00Z',
      claims: { degree: { type: 'BachelorDegree', name: 'Bachelor of Science' } },
      evidence: { id: 'https://example.edu/evidence/1', type: 'DocumentVerification' },
      termsOfUse: { id: 'https://example.edu/tou/1', type: 'IssuerPolicy' },
      credentialFormatOptions: { '@context': [{ '@vocab': 'https://example.edu/terms#' }] },
      proofFormatOptions: { proofPurpose: 'assertionMethod' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.type).toEqual(['VerifiableCredential', 'UniversityDegreeCredential']);
    expect(reply.body.credentialSubject.id).toBe('did:example:alice');
    expect(reply.body.proof.jws).toMatch(/\.\./);
    const verified = await vcs.call('POST', '/verifier/credentials', { verifiableCredential: reply.body });
    expect(verified.status).toBe(200);
    const unknownContext = await vcs.call('POST', '/composer/credentials/composeAndIssueCredential', {
      subject: 'did:example:alice',
      credentialFormatOptions: { '@context': ['https://example.com/contexts/not-bundled/v1'] },
    });
    expect(unknownContext.status).toBe(400);
    expect(unknownContext.body.message).toMatch(
      /unknown JSON-LD context https:\/\/example.com\/contexts\/not-bundled\/v1/,
    );
  });

  it('composes with the default proofFormat jws on a JWS suite, the suite form otherwise, and refuses a form the suite lacks', async () => {
    const minimal = { subject: 'did:example:alice', issuanceDate: '2024-01-01T00:00:00Z' };
    const jws = await vcs.call('POST', '/composer/credentials/composeAndIssueCredential', minimal);
    expect(jws.status).toBe(201);
    expect(jws.body['@context'][0]).toBe(CREDENTIALS_V1);
    expect(jws.body.type).toEqual(['VerifiableCredential']);
    expect(jws.body.proof.jws).toBeDefined();
    const value = await vcs.call('POST', '/issuer/credentials/composeAndIssueCredential', minimal);
    expect(value.status).toBe(201);
    expect(value.body.proof.proofValue).toBeDefined();
    const wrong = await vcs.call('POST', '/issuer/credentials/composeAndIssueCredential', {
      ...minimal,
      proofFormat: 'jws',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/proofFormat jws is not available with Ed25519Signature2020/);
    const bad = await vcs.call('POST', '/issuer/credentials/composeAndIssueCredential', {
      ...minimal,
      proofFormat: 'cbor',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/proofFormat/);
    const badDate = await vcs.call('POST', '/issuer/credentials/composeAndIssueCredential', {
      ...minimal,
      expirationDate: 'soon',
    });
    expect(badDate.status).toBe(400);
    expect(badDate.body.message).toMatch(/expirationDate/);
    expect((await vcs.call('POST', '/nobody/credentials/composeAndIssueCredential', minimal)).status).toBe(404);
  });
});
