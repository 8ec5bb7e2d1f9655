import { KeyPair, type KeyType } from '@anchor/common/crypto';
import { base58Encode, base64UrlDecode, base64UrlEncode, hashlinkMetadata } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import { createRequest, deactivateRequest, recoverRequest, updateRequest } from './client/build-requests.js';
import {
  addAlsoKnownAs,
  addPublicKeys,
  addServices,
  documentKey,
  removeAlsoKnownAs,
  removePublicKeys,
  removeServices,
  service,
} from './client/patch-builders.js';
import { parseNodeDid } from './did/parse-node-did.js';
import { renderNodeResolution } from './render/node-resolution.js';
import { DOMAIN, ORIGIN, START_TIME, TestLedger } from './testing/ledger.test-helpers.js';

/**
 * Full did:node lifecycles (create → update → recover → deactivate) with each kind of signing key, through
 * ingest parsing, anchored re-parsing, resolution and the did:node rendering.
 */
const SIGNING_KEY_TYPES: { type: KeyType; documentKeyType: string }[] = [
  { type: 'Ed25519', documentKeyType: 'Ed25519VerificationKey2018' },
  { type: 'P-256', documentKeyType: 'JsonWebKey2020' },
  { type: 'secp256k1', documentKeyType: 'EcdsaSecp256k1VerificationKey2019' },
];

describe.each(SIGNING_KEY_TYPES)('did:node lifecycle with $type keys', ({ type, documentKeyType }) => {
  const recovery1 = KeyPair.generate(type);
  const recovery2 = KeyPair.generate(type);
  const update1 = KeyPair.generate(type);
  const update2 = KeyPair.generate(type);
  const update3 = KeyPair.generate(type);
  const docKey1 = KeyPair.generate(type);
  const docKey2 = KeyPair.generate(type);
  const ledger = new TestLedger();

  const created = createRequest({
    recoveryKey: recovery1,
    updateKey: update1,
    anchorOrigin: ORIGIN,
    patches: [
      addPublicKeys(
        documentKey('key-1', docKey1, { type: documentKeyType, purposes: ['authentication', 'assertionMethod'] }),
      ),
      addServices(
        service('hub', 'LinkedDomains', 'https://hub.example.com', { priority: 0, routingKeys: ['did:example:r'] }),
      ),
      addAlsoKnownAs('https://alias.example.com'),
    ],
  });
  const suffix = created.didSuffix;
  const render = (did: string) => renderNodeResolution(ledger.resolve(suffix), { did, domain: DOMAIN });

  it('create: accepted unpublished, then published with canonical and equivalent ids', () => {
    const accepted = ledger.submit(created.request);
    expect(accepted.didSuffix).toBe(suffix);
    expect(accepted.anchorOrigin).toBe(ORIGIN);
    expect(created.did).toBe(`did:node:uAAA:${suffix}`);

    const unpublished = render(created.did);
    expect(unpublished.didDocumentMetadata).toEqual({
      equivalentId: [`did:node:https:${DOMAIN}:uAAA:${suffix}`],
      method: {
        anchorOrigin: ORIGIN,
        published: false,
        recoveryCommitment: accepted.type === 'create' ? accepted.nextRecoveryCommitment : '',
        updateCommitment: accepted.type === 'create' ? accepted.nextUpdateCommitment : '',
      },
    });

    const anchorHash = ledger.anchor([accepted]);
    expect(ledger.unpublished).toHaveLength(0);
    const published = render(`did:node:${anchorHash}:${suffix}`);
    const metadata = published.didDocumentMetadata;
    expect(metadata.canonicalId).toBe(`did:node:${anchorHash}:${suffix}`);
    expect(metadata.equivalentId).toEqual([
      `did:node:${anchorHash}:${suffix}`,
      `did:node:hl:${anchorHash}:${hashlinkMetadata([`https://${DOMAIN}/cas/${anchorHash}`])}:${suffix}`,
      `did:node:https:${DOMAIN}:${anchorHash}:${suffix}`,
    ]);
    expect(metadata.versionId).toBe(anchorHash);
    expect(metadata.created).toBe(new Date(START_TIME * 1000).toISOString().replace('.000Z', 'Z'));
    expect(metadata.updated).toBeUndefined();
    const method = metadata.method as Record<string, unknown>;
    expect(method.published).toBe(true);
    expect(method.publishedOperations).toEqual([
      {
        anchorOrigin: ORIGIN,
        canonicalReference: anchorHash,
        equivalentReferences: ledger.published[0]?.anchor.equivalentReferences,
        operationRequest: base64UrlEncode(accepted.canonicalRequest),
        protocolVersion: 0,
        transactionNumber: 1,
        transactionTime: START_TIME,
        type: 'create',
      },
    ]);

    const id = `did:node:${anchorHash}:${suffix}`;
    const keyMaterial =
      documentKeyType === 'Ed25519VerificationKey2018'
        ? { publicKeyBase58: base58Encode(base64UrlDecode(docKey1.publicJwk().x as string)) }
        : { publicKeyJwk: docKey1.publicJwk() };
    const suiteContext = {
      Ed25519VerificationKey2018: 'https://w3id.org/security/suites/ed25519-2018/v1',
      JsonWebKey2020: 'https://w3id.org/security/suites/jws-2020/v1',
      EcdsaSecp256k1VerificationKey2019: 'https://w3id.org/security/suites/secp256k1-2019/v1',
    }[documentKeyType];
    expect(published.didDocument).toEqual({
      '@context': ['https://www.w3.org/ns/did/v1', suiteContext],
      id,
      verificationMethod: [{ id: `${id}#key-1`, type: documentKeyType, controller: id, ...keyMaterial }],
      authentication: [`${id}#key-1`],
      assertionMethod: [`${id}#key-1`],
      service: [
        {
          id: `${id}#hub`,
          type: 'LinkedDomains',
          serviceEndpoint: 'https://hub.example.com',
          priority: 0,
          routingKeys: ['did:example:r'],
        },
      ],
      alsoKnownAs: ['https://alias.example.com'],
    });
  });

  it('update: add and remove keys, services and also-known-as', () => {
    ledger.now += 60;
    const first = ledger.accept(
      updateRequest({
        didSuffix: suffix,
        updateKey: update1,
        nextUpdateKey: update2,
        patches: [
          addPublicKeys(documentKey('key-2', docKey2, { type: documentKeyType, purposes: ['capabilityInvocation'] })),
          removePublicKeys('key-1'),
          addServices(service('mail', 'Messaging', ['https://m1.example.com', 'https://m2.example.com'])),
          addAlsoKnownAs('did:web:example.com'),
        ],
      }),
    );
    const firstAnchor = ledger.anchor([first]);
    ledger.now += 60;
    const secondAnchor = ledger.anchor([
      ledger.accept(
        updateRequest({
          didSuffix: suffix,
          updateKey: update2,
          nextUpdateKey: update3,
          patches: [removeServices('hub'), removeAlsoKnownAs('https://alias.example.com')],
        }),
      ),
    ]);
    expect(secondAnchor).not.toBe(firstAnchor);
    const model = ledger.resolve(suffix);
    expect(model.document.publicKeys.map((key) => key.id)).toEqual(['key-2']);
    expect(model.document.services.map((entry) => entry.id)).toEqual(['mail']);
    expect(model.document.alsoKnownAs).toEqual(['did:web:example.com']);
    expect(model.versionId).toBe(secondAnchor);
    expect(model.canonicalReference).toBe(ledger.published[0]?.anchor.canonicalReference);
    expect(model.updatedTime).toBe(ledger.now);
    expect(model.appliedOperations.map((operation) => operation.type)).toEqual(['create', 'update', 'update']);
  });

  it('recover: new document, new commitments, new anchor origin, canonical id moves to the recover anchor', () => {
    ledger.now += 60;
    const recover = ledger.accept(
      recoverRequest({
        didSuffix: suffix,
        recoveryKey: recovery1,
        nextRecoveryKey: recovery2,
        nextUpdateKey: update1,
        anchorOrigin: 'https://node2.example.com',
        patches: [
          addPublicKeys(documentKey('fresh', docKey1, { type: documentKeyType, purposes: ['authentication'] })),
        ],
      }),
    );
    const anchorHash = ledger.anchor([recover]);
    const result = render(`did:node:${anchorHash}:${suffix}`);
    expect(result.didDocumentMetadata.canonicalId).toBe(`did:node:${anchorHash}:${suffix}`);
    const method = result.didDocumentMetadata.method as Record<string, unknown>;
    expect(method.anchorOrigin).toBe('https://node2.example.com');
    expect(method.recoveryCommitment).toBe(recover.type === 'recover' ? recover.nextRecoveryCommitment : '');
    // Updates anchored before the recover no longer shape the state, so only create and recover are listed.
    expect((method.publishedOperations as { type: string }[]).map((operation) => operation.type)).toEqual([
      'create',
      'recover',
    ]);
    expect((result.didDocument.verificationMethod as { id: string }[]).map((key) => key.id)).toEqual([
      `did:node:${anchorHash}:${suffix}#fresh`,
    ]);
    expect(result.didDocument.service).toBeUndefined();
    expect(result.didDocument.alsoKnownAs).toBeUndefined();
    // The old canonical DID still resolves (its anchor is an earlier anchor of the suffix).
    expect(parseNodeDid(`did:node:${ledger.published[0]?.anchor.canonicalReference}:${suffix}`).suffix).toBe(suffix);
  });

  it('deactivate: document reduced to its id, method holds only anchorOrigin and published; later operations are ignored', () => {
    ledger.now += 60;
    const deactivateAnchor = ledger.anchor([
      ledger.accept(deactivateRequest({ didSuffix: suffix, recoveryKey: recovery2 })),
    ]);
    ledger.now += 60;
    // An update with the key the recover committed to, and a recover with the recovery key the deactivate
    // revealed, both anchored after the deactivate: ignored.
    ledger.anchor([
      updateRequest({
        didSuffix: suffix,
        updateKey: update1,
        nextUpdateKey: update2,
        patches: [removePublicKeys('fresh')],
      }),
    ]);
    ledger.anchor([
      recoverRequest({
        didSuffix: suffix,
        recoveryKey: recovery2,
        nextRecoveryKey: recovery1,
        nextUpdateKey: update3,
        anchorOrigin: ORIGIN,
        patches: [],
      }),
    ]);
    const canonical = ledger.resolve(suffix).canonicalReference as string;
    const did = `did:node:${canonical}:${suffix}`;
    const result = render(did);
    expect(result.didDocument).toEqual({ '@context': ['https://www.w3.org/ns/did/v1'], id: did });
    expect(result.didDocumentMetadata.deactivated).toBe(true);
    expect(result.didDocumentMetadata.method).toEqual({ anchorOrigin: 'https://node2.example.com', published: true });
    expect(result.didDocumentMetadata.versionId).toBe(deactivateAnchor);
    expect(result.didDocumentMetadata.canonicalId).toBe(did);
    expect(ledger.resolve(suffix).appliedOperations.map((operation) => operation.type)).toEqual([
      'create',
      'recover',
      'deactivate',
    ]);
  });
});
