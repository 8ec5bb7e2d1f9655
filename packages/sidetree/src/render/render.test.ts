import { KeyPair } from '@anchor/common/crypto';
import { base58Encode, base64UrlDecode } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { createRequest } from '../client/build-requests.js';
import { addAlsoKnownAs, addPublicKeys, addServices, documentKey, service } from '../client/patch-builders.js';
import { parseNodeDid } from '../did/parse-node-did.js';
import { applyPatches } from '../patches/apply-patches.js';
import { EMPTY_DOCUMENT } from '../patches/types.js';
import { resolveOperations } from '../resolution/resolve-operations.js';
import { DOMAIN, ORIGIN, TestLedger } from '../testing/ledger.test-helpers.js';
import { copy, requestFixture } from '../testing/requests.test-helpers.js';
import { renderNodeDocument } from './node-document.js';
import { renderNodeResolution } from './node-resolution.js';

const ID = 'did:node:uAAA:EiA';

describe('renderNodeDocument (the Go rendering)', () => {
  const ed = KeyPair.generate('Ed25519');
  const p256 = KeyPair.generate('P-256');
  const k1 = KeyPair.generate('secp256k1');
  const x = KeyPair.generate('X25519');
  const document = applyPatches(EMPTY_DOCUMENT, [
    addPublicKeys(
      documentKey('jwk', p256, { purposes: ['authentication', 'capabilityInvocation'] }),
      documentKey('ed18', ed, { type: 'Ed25519VerificationKey2018', purposes: ['assertionMethod'] }),
      documentKey('ed20', ed, { type: 'Ed25519VerificationKey2020', purposes: ['authentication'] }),
      documentKey('k1', k1, { type: 'EcdsaSecp256k1VerificationKey2019' }),
      documentKey('jwk2', p256, { purposes: ['capabilityDelegation'] }),
      documentKey('agree', x, { type: 'X25519KeyAgreementKey2019', purposes: ['keyAgreement'] }),
      {
        id: 'b58',
        type: 'Ed25519VerificationKey2018',
        publicKeyBase58: ed.publicKeyBase58(),
        purposes: ['authentication'],
      },
    ),
    addServices(
      service(
        'hub',
        'LinkedDomains',
        { origins: ['https://a.example'] },
        { priority: 1, recipientKeys: ['did:key:z'], routingKeys: [] },
      ),
    ),
    addAlsoKnownAs('https://alias.example.com'),
  ]);

  it('uses absolute ids, suite contexts in first-seen order and the key encodings per type', () => {
    const rendered = renderNodeDocument(document, ID);
    expect(rendered['@context']).toEqual([
      'https://www.w3.org/ns/did/v1',
      'https://w3id.org/security/suites/jws-2020/v1',
      'https://w3id.org/security/suites/ed25519-2018/v1',
      'https://w3id.org/security/suites/ed25519-2020/v1',
      'https://w3id.org/security/suites/secp256k1-2019/v1',
      'https://w3id.org/security/suites/x25519-2019/v1',
    ]);
    expect(rendered.verificationMethod).toEqual([
      { id: `${ID}#jwk`, type: 'JsonWebKey2020', controller: ID, publicKeyJwk: p256.publicJwk() },
      {
        id: `${ID}#ed18`,
        type: 'Ed25519VerificationKey2018',
        controller: ID,
        publicKeyBase58: base58Encode(base64UrlDecode(ed.publicJwk().x as string)),
      },
      // Multikey form (z6Mk…): the multicodec prefix the Ed25519VerificationKey2020 suite requires.
      {
        id: `${ID}#ed20`,
        type: 'Ed25519VerificationKey2020',
        controller: ID,
        publicKeyMultibase: ed.publicKeyMultibase(),
      },
      { id: `${ID}#k1`, type: 'EcdsaSecp256k1VerificationKey2019', controller: ID, publicKeyJwk: k1.publicJwk() },
      { id: `${ID}#jwk2`, type: 'JsonWebKey2020', controller: ID, publicKeyJwk: p256.publicJwk() },
      { id: `${ID}#agree`, type: 'X25519KeyAgreementKey2019', controller: ID, publicKeyJwk: x.publicJwk() },
      { id: `${ID}#b58`, type: 'Ed25519VerificationKey2018', controller: ID, publicKeyBase58: ed.publicKeyBase58() },
    ]);
    expect((rendered.verificationMethod as { publicKeyMultibase?: string }[])[2]?.publicKeyMultibase).toMatch(/^z6Mk/);
    expect(rendered.authentication).toEqual([`${ID}#jwk`, `${ID}#ed20`, `${ID}#b58`]);
    expect(rendered.assertionMethod).toEqual([`${ID}#ed18`]);
    expect(rendered.capabilityInvocation).toEqual([`${ID}#jwk`]);
    expect(rendered.capabilityDelegation).toEqual([`${ID}#jwk2`]);
    expect(rendered.keyAgreement).toEqual([`${ID}#agree`]);
    expect(rendered.service).toEqual([
      {
        id: `${ID}#hub`,
        type: 'LinkedDomains',
        serviceEndpoint: { origins: ['https://a.example'] },
        priority: 1,
        recipientKeys: ['did:key:z'],
        routingKeys: [],
      },
    ]);
    expect(rendered.alsoKnownAs).toEqual(['https://alias.example.com']);
  });

  it('omits empty sections', () => {
    expect(renderNodeDocument(EMPTY_DOCUMENT, ID)).toEqual({ '@context': ['https://www.w3.org/ns/did/v1'], id: ID });
  });
});

describe('renderNodeResolution: metadata in every state', () => {
  const fixture = requestFixture();

  it('unpublished without a configured domain lists no equivalent ids; a long form lists its short form', () => {
    const ledger = new TestLedger();
    ledger.submit(fixture.created.request);
    const model = ledger.resolve(fixture.didSuffix);
    expect(renderNodeResolution(model, { did: fixture.created.did }).didDocumentMetadata.equivalentId).toBeUndefined();
    const long = renderNodeResolution(model, { did: fixture.created.longFormDid, domain: 'localhost:8443' });
    expect(long.didDocumentMetadata.equivalentId).toEqual([
      `did:node:https:localhost%3A8443:uAAA:${fixture.didSuffix}`,
      fixture.created.did,
    ]);
    expect(long.didDocumentMetadata.canonicalId).toBeUndefined();
    expect(long.didDocument.id).toBe(fixture.created.longFormDid);
  });

  it('resolves a long form from its initial state when nothing is stored, and as the short form once published', () => {
    const did = parseNodeDid(fixture.created.longFormDid);
    const unpublished = resolveOperations(fixture.didSuffix, { longFormCreate: did.longFormCreate });
    const result = renderNodeResolution(unpublished, { did, domain: DOMAIN });
    expect(result.didDocumentMetadata).toEqual({
      equivalentId: [`did:node:https:${DOMAIN}:uAAA:${fixture.didSuffix}`, fixture.created.did],
      method: {
        anchorOrigin: ORIGIN,
        published: false,
        recoveryCommitment: fixture.created.request.suffixData.recoveryCommitment,
        updateCommitment: fixture.created.request.delta.updateCommitment,
      },
    });
    const ledger = new TestLedger();
    const anchor = ledger.anchor([fixture.created.request]);
    ledger.anchor([fixture.update({ patches: [addServices(service('later', 'T', 'https://later.example.com'))] })]);
    const published = resolveOperations(fixture.didSuffix, {
      published: ledger.published,
      longFormCreate: did.longFormCreate,
    });
    const rendered = renderNodeResolution(published, { did, domain: DOMAIN });
    expect(rendered.didDocumentMetadata.canonicalId).toBe(`did:node:${anchor}:${fixture.didSuffix}`);
    expect((rendered.didDocumentMetadata.equivalentId as string[])[0]).toBe(`did:node:${anchor}:${fixture.didSuffix}`);
    expect((rendered.didDocument.service as { id: string }[]).map((entry) => entry.id)).toEqual([
      `${fixture.created.longFormDid}#hub`,
      `${fixture.created.longFormDid}#later`,
    ]);
  });

  it('does not repeat an https form the anchor already lists, and can leave out published operations', () => {
    const ledger = new TestLedger();
    const anchor = ledger.anchor([fixture.created.request]);
    const model = ledger.resolve(fixture.didSuffix);
    const result = renderNodeResolution(model, {
      did: `did:node:${anchor}:${fixture.didSuffix}`,
      domain: DOMAIN,
      includePublishedOperations: false,
    });
    expect(result.didDocumentMetadata.equivalentId).toHaveLength(3);
    expect((result.didDocumentMetadata.method as Record<string, unknown>).publishedOperations).toBeUndefined();
    const other = renderNodeResolution(model, {
      did: `did:node:${anchor}:${fixture.didSuffix}`,
      domain: 'node9.example.com',
    });
    expect((other.didDocumentMetadata.equivalentId as string[]).at(-1)).toBe(
      `did:node:https:node9.example.com:${anchor}:${fixture.didSuffix}`,
    );
    expect(
      renderNodeResolution(model, { did: `did:orb:${anchor}:${fixture.didSuffix}`, aliases: ['did:orb'] }).didDocument
        .id,
    ).toBe(`did:orb:${anchor}:${fixture.didSuffix}`);
  });

  it('a DID whose create delta is unusable renders an empty document without updateCommitment', () => {
    const broken = copy(fixture.created.request);
    broken.delta.patches = [addAlsoKnownAs('https://x.example')];
    const ledger = new TestLedger();
    ledger.anchor([broken]);
    const result = renderNodeResolution(ledger.resolve(fixture.didSuffix), { did: fixture.created.did });
    expect(result.didDocument).toEqual({ '@context': ['https://www.w3.org/ns/did/v1'], id: fixture.created.did });
    expect(result.didDocumentMetadata.method).toMatchObject({
      published: true,
      recoveryCommitment: fixture.created.request.suffixData.recoveryCommitment,
    });
    expect((result.didDocumentMetadata.method as Record<string, unknown>).updateCommitment).toBeUndefined();
  });

  it('renders the unpublished create response exactly as the spec describes', () => {
    const created = createRequest({
      recoveryKey: KeyPair.generate('Ed25519'),
      updateKey: KeyPair.generate('Ed25519'),
      anchorOrigin: ORIGIN,
      patches: [addAlsoKnownAs('https://a.example')],
    });
    const ledger = new TestLedger();
    ledger.submit(created.request);
    const result = renderNodeResolution(ledger.resolve(created.didSuffix), { did: created.did, domain: DOMAIN });
    expect(result['@context']).toBe('https://w3id.org/did-resolution/v1');
    expect(result.didDocument.id).toBe(`did:node:uAAA:${created.didSuffix}`);
    expect(result.didDocumentMetadata.equivalentId).toEqual([`did:node:https:${DOMAIN}:uAAA:${created.didSuffix}`]);
    expect(result.didDocumentMetadata.versionId).toBeUndefined();
    expect(result.didDocumentMetadata.created).toBeUndefined();
  });
});
