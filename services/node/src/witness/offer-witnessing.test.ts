import { KeyPair, localSigner } from '@anchor/common/crypto';
import { createDidResolver, didKeyFromKeyPair } from '@anchor/common/did';
import { createHashlink } from '@anchor/common/encoding';
import { createHttpClient } from '@anchor/common/http-client';
import {
  ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
  attachProof,
  createProof,
  type DataIntegrityProof,
} from '@anchor/common/jsonld';
import { getLogger, setLogLevels } from '@anchor/common/log';
import { createMetrics } from '@anchor/common/metrics';
import { createMemMessageQueue, type MessageQueue } from '@anchor/common/mq';
import { createMemStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { createWebFingerClient } from '@anchor/common/webfinger';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ActivityStore } from '../activitypub/activity-store.js';
import { ActorResolver } from '../activitypub/actor-resolver.js';
import { BROADCAST_STORE, Outbox, type PendingBroadcast } from '../activitypub/outbox.js';
import { ANCHOR_WITNESS, PUBLIC, derivedActivityId, type StoredActivity } from '../activitypub/vocabulary.js';
import { buildAnchorCredential, type AnchorCredential } from '../anchor-model/anchor-credential.js';
import { buildAnchorLink, buildContentObject, contentAnchor } from '../anchor-model/anchor-linkset.js';
import type { WitnessRequest } from '../anchoring/witnessing.js';
import { domainDidDocument, localFirstDidWebResolver, vcVerificationMethod } from '../identity/domain-did-document.js';
import type { NodeKeys } from '../identity/node-keys.js';
import { nodeUrls } from '../identity/node-urls.js';
import { createNodeMetrics } from '../observability/node-metrics.js';
import { CredentialVerifier } from '../observer/credential-verifier.js';
import { ConfigValues } from '../runtime-config/config-values.js';
import { OfferWitnessing, type OfferWitnessingOptions } from './offer-witnessing.js';
import { WitnessPolicySetting } from './policy-setting.js';
import { WitnessCandidates } from './witness-candidates.js';
import { WitnessingRecords } from './witnessing-records.js';

const ORIGIN = 'https://origin.test';
const SERVICE_ID = `${ORIGIN}/services/node`;
const WITNESS_ORIGIN = 'https://witness.test';
const WITNESS_ID = `${WITNESS_ORIGIN}/services/node`;
const OPTIONS: OfferWitnessingOptions = {
  serviceEndpoint: SERVICE_ID,
  maxWitnessDelayMs: 60_000,
  maxClockSkewMs: 5_000,
  gracePeriodMs: 60_000,
  monitoringIntervalMs: 500,
  expiryMs: 3_600_000,
};

/** The witness's keys, published in its domain DID document (did:web:witness.test), which the verifier resolves from memory. */
const witnessVcKey = KeyPair.generate('Ed25519');
const witnessKeys: NodeKeys = {
  vcSigner: localSigner(witnessVcKey),
  vcKeyId: 'vc-key',
  httpSigner: localSigner(KeyPair.generate('Ed25519')),
  httpKeyId: 'http-key',
  health: async () => 'success',
  close: () => undefined,
};
const witnessUrls = nodeUrls({ hostUrl: { host: 'witness.test', port: 443 }, externalEndpoint: WITNESS_ORIGIN });
const witnessMethod = vcVerificationMethod(witnessUrls, witnessKeys);

/**
 * Witnessing by other nodes, the origin side, over a mem store and queue: Offers through the real outbox,
 * proofs checked by the real verifier, the witness policy, and re-selection past the grace period.
 */
describe('offer witnessing', () => {
  let provider: StoreProvider;
  let mq: MessageQueue;
  let store: ActivityStore;
  let records: WitnessingRecords;
  let proofsFor: string[];
  const nodeKey = KeyPair.generate('Ed25519');
  const nodeDid = didKeyFromKeyPair(nodeKey);
  const metrics = createNodeMetrics(createMetrics({ prefix: 'node_', processMetrics: false }));

  beforeAll(() => setLogLevels('error'));

  beforeEach(async () => {
    provider = createMemStoreProvider();
    mq = createMemMessageQueue();
    store = await ActivityStore.open(provider);
    records = await WitnessingRecords.open(provider);
    proofsFor = [];
  });

  afterEach(async () => {
    await mq.close();
    await provider.close();
  });

  async function witnessing(options: Partial<OfferWitnessingOptions> = {}): Promise<OfferWitnessing> {
    const log = getLogger('witness');
    const didResolver = createDidResolver().register(
      'web',
      localFirstDidWebResolver(domainDidDocument(witnessUrls, witnessKeys)),
    );
    const created = new OfferWitnessing({
      records,
      candidates: new WitnessCandidates({
        actors: new ActorResolver({ httpClient: createHttpClient(), didResolver, cacheTtlMs: 60_000, devMode: false }),
        store,
        webFinger: createWebFingerClient(),
        serviceId: SERVICE_ID,
        ownOrigins: [ORIGIN, SERVICE_ID],
        log,
      }),
      policy: new WitnessPolicySetting(await ConfigValues.open(provider)),
      outbox: new Outbox({
        store,
        broadcasts: await provider.open<PendingBroadcast>(BROADCAST_STORE),
        mq,
        serviceId: SERVICE_ID,
        serviceEndpoint: SERVICE_ID,
        metrics,
        log,
      }),
      verifier: new CredentialVerifier(didResolver, 60_000),
      log,
      options: { ...OPTIONS, ...options },
    });
    created.onProof((anchorId) => proofsFor.push(anchorId));
    return created;
  }

  /** An anchor of this node as the pipeline hands it to witnessing: the credential carries the node's own proof. */
  async function anchorRequest(anchorId: string): Promise<WitnessRequest> {
    const coreIndexHashlink = createHashlink(Buffer.from(`core index of ${anchorId}`), [`${ORIGIN}/cas/core`]);
    const content = buildContentObject({
      coreIndexHashlink,
      author: SERVICE_ID,
      items: [{ suffix: 'EiDahaOGH-liLLdDtTxEAdc8i-cfCz-WUcQdRJheMVNn3A' }],
      namespace: 'did:node',
    });
    const anchor = contentAnchor(content);
    const unsigned = buildAnchorCredential({
      id: `${ORIGIN}/vc/${anchorId}`,
      issuer: SERVICE_ID,
      issued: new Date(Date.now() - 2_000),
      anchor,
      coreIndexAnchor: content.linkset[0].anchor,
    });
    const ownProof = await createProof(unsigned, {
      key: nodeKey,
      verificationMethod: `${nodeDid}#${nodeDid.slice('did:key:'.length)}`,
      domain: ORIGIN,
      allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
    });
    const credential = attachProof(unsigned, ownProof) as AnchorCredential;
    return {
      anchorId,
      anchor,
      link: async () =>
        buildAnchorLink({ content, author: SERVICE_ID, coreIndexHashlink, parents: [], credential, encoding: 'gzip' }),
      credential,
      batchOrigins: [ORIGIN],
      startedAt: Date.now(),
      attempt: 1,
    };
  }

  /** The witness's Accept of an Offer: an AnchorReceipt replying to the anchor with its proof of the credential. */
  async function acceptOf(
    offer: StoredActivity,
    request: WitnessRequest,
    change: {
      actor?: string;
      inReplyTo?: string;
      proof?: Partial<{ key: KeyPair; verificationMethod: string; created: string }>;
    } = {},
  ): Promise<StoredActivity> {
    const { proof: _own, ...unsigned } = request.credential;
    const proof = await createProof(unsigned, {
      key: change.proof?.key ?? witnessVcKey,
      verificationMethod: change.proof?.verificationMethod ?? witnessMethod,
      domain: WITNESS_ORIGIN,
      ...(change.proof?.created !== undefined ? { created: change.proof.created } : {}),
      allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
    });
    return {
      id: `${WITNESS_ORIGIN}/activities/accept-${Math.random().toString(36).slice(2)}`,
      type: 'Accept',
      actor: change.actor ?? WITNESS_ID,
      object: offer.id,
      result: {
        type: 'AnchorReceipt',
        inReplyTo: change.inReplyTo ?? request.anchor,
        attachment: [{ '@context': 'https://w3id.org/security/suites/ed25519-2020/v1', proof }],
      },
    };
  }

  const offersInOutbox = async () => (await store.allRefIris('outbox', SERVICE_ID)).length;

  it("with no candidate witnesses the node's own proof satisfies the default policy at once", async () => {
    const offers = await witnessing();
    const request = await anchorRequest('anchor-1');
    const outcome = await offers.witness(request);

    expect(outcome).toEqual({ status: 'witnessed', credential: request.credential });
    const record = await records.anchors.get('anchor-1');
    expect(record).toMatchObject({
      anchorId: 'anchor-1',
      anchor: request.anchor,
      status: 'completed',
      witnesses: [],
      rounds: 0,
    });
    expect(record!.expiresAt! - Date.now()).toBeGreaterThan(OPTIONS.expiryMs - 60_000);
    expect(await offersInOutbox()).toBe(0);
  });

  it("offers the anchor to a system witness, waits for its proof, and completes with the witness's proof added", async () => {
    await store.addRef('witness', SERVICE_ID, WITNESS_ID);
    const offers = await witnessing();
    const request = await anchorRequest('anchor-2');

    const first = await offers.witness(request);
    expect(first).toEqual({ status: 'pending', recheckAfterMs: 1_000 });
    const offerId = derivedActivityId(SERVICE_ID, `Offer:anchor-2:1:${WITNESS_ID}`);
    const offer = (await store.get(offerId))!;
    expect(offer).toMatchObject({
      type: 'Offer',
      actor: SERVICE_ID,
      to: [WITNESS_ID, PUBLIC],
      target: ANCHOR_WITNESS,
      object: { linkset: [await request.link()] },
    });
    expect(Date.parse(String(offer.endTime)) - Date.parse(String(offer.startTime))).toBe(OPTIONS.maxWitnessDelayMs);
    const record = (await records.anchors.get('anchor-2'))!;
    expect(record).toMatchObject({
      status: 'witnessing',
      rounds: 1,
      witnesses: [{ uri: WITNESS_ID, roles: ['system'], hasLog: false, offerId }],
    });

    // Still pending while no proof came: the same Offer is not sent twice.
    expect((await offers.witness({ ...request, attempt: 2 })).status).toBe('pending');
    expect(await offersInOutbox()).toBe(1);

    await offers.acceptedOffer(await acceptOf(offer, request), offer);
    expect(proofsFor).toEqual(['anchor-2']);
    expect((await records.proofsOf('anchor-2')).map((proof) => proof.witness)).toEqual([WITNESS_ID]);

    const done = await offers.witness({ ...request, attempt: 3 });
    expect(done.status).toBe('witnessed');
    const proofs = (done as { credential: AnchorCredential }).credential.proof as DataIntegrityProof[];
    expect(proofs.map((proof) => proof.verificationMethod)).toEqual([
      `${nodeDid}#${nodeDid.slice('did:key:'.length)}`,
      witnessMethod,
    ]);
    expect((await records.anchors.get('anchor-2'))?.status).toBe('completed');
  });

  it('refuses an Accept whose proof is not for this Offer, not by a witness of the anchor, not by a key of its host (400), or does not verify (422)', async () => {
    await store.addRef('witness', SERVICE_ID, WITNESS_ID);
    const offers = await witnessing();
    const request = await anchorRequest('anchor-3');
    await offers.witness(request);
    const offer = (await store.get(derivedActivityId(SERVICE_ID, `Offer:anchor-3:1:${WITNESS_ID}`)))!;
    const strangerKey = KeyPair.generate('Ed25519');
    const strangerDid = didKeyFromKeyPair(strangerKey);

    const refusals: Array<[Parameters<typeof acceptOf>[2], number, RegExp]> = [
      [
        { inReplyTo: 'hl:uEiAnotTheOfferedAnchor' },
        400,
        /replies to hl:uEiAnotTheOfferedAnchor, not to the offered anchor/,
      ],
      [
        { actor: 'https://stranger.test/services/node' },
        400,
        /https:\/\/stranger.test\/services\/node is not a witness of anchor/,
      ],
      [{ proof: { created: new Date(Date.now() - 3_600_000).toISOString() } }, 400, /outside the offer's window/],
      [
        { proof: { key: strangerKey, verificationMethod: `${strangerDid}#${strangerDid.slice('did:key:'.length)}` } },
        400,
        /not by a did:web key of its own host/,
      ],
      [{ proof: { key: strangerKey } }, 422, /proof verification failed: proof 0 \(signature\)/],
    ];
    for (const [change, status, message] of refusals) {
      await expect(
        offers.acceptedOffer(await acceptOf(offer, request, change), offer),
        String(message),
      ).rejects.toMatchObject({ status, message });
    }
    expect(await records.proofsOf('anchor-3')).toEqual([]);
    expect(proofsFor).toEqual([]);
    expect((await offers.witness({ ...request, attempt: 2 })).status).toBe('pending');
  });

  it('asks again past the grace period when the witness was silent and nobody can take its place', async () => {
    await store.addRef('witness', SERVICE_ID, WITNESS_ID);
    const offers = await witnessing({ gracePeriodMs: 0 });
    const request = await anchorRequest('anchor-4');

    expect(await offers.witness(request)).toEqual({ status: 'pending', recheckAfterMs: 0 });
    const record = (await records.anchors.get('anchor-4'))!;
    const secondOffer = derivedActivityId(SERVICE_ID, `Offer:anchor-4:2:${WITNESS_ID}`);
    expect(record).toMatchObject({
      status: 'witnessing',
      rounds: 2,
      witnesses: [{ uri: WITNESS_ID, offerId: secondOffer }],
    });
    expect(record.witnesses[0]!.excluded).toBeUndefined();
    expect(await store.get(derivedActivityId(SERVICE_ID, `Offer:anchor-4:1:${WITNESS_ID}`))).toBeDefined();
    expect(await store.get(secondOffer)).toMatchObject({ type: 'Offer', to: [WITNESS_ID, PUBLIC] });
    expect(await offersInOutbox()).toBe(2);
  });
});
