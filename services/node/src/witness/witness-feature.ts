import { notFound } from '@anchor/common/errors';
import { answer, plainTextBody, type Handler } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import { createWebFingerClient } from '@anchor/common/webfinger';
import type { ActivityPubFeature } from '../activitypub/activitypub-feature.js';
import { LocalWitness } from '../anchoring/local-witness.js';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { vcVerificationMethod } from '../identity/domain-did-document.js';
import { CredentialVerifier } from '../observer/credential-verifier.js';
import type { VctClientFeature } from '../vct-client/vct-client-feature.js';
import { OfferWitnessing } from './offer-witnessing.js';
import { WitnessPolicySetting } from './policy-setting.js';
import { WitnessCandidates } from './witness-candidates.js';
import { offerHandler } from './witness-side.js';
import { WitnessingRecords } from './witnessing-records.js';

export interface WitnessFeature extends NodeFeature {
  /** The witnessing step of the anchor pipeline: Offers to other nodes, their proofs, the policy. */
  readonly witnessing: OfferWitnessing;
  readonly policy: WitnessPolicySetting;
  readonly records: WitnessingRecords;
  /** Registers a listener for arriving proofs (the anchoring feature's pipeline looks at the anchor again). */
  onProof(listener: (anchorId: string) => void): void;
  /** The witness policy's endpoints: an administrator setting (the route table makes them token-only). */
  readonly handlers: { readonly getPolicy: Handler; readonly setPolicy: Handler };
}

/**
 * Witnessing, both sides (orb.md §2.5-§2.6): the witness policy (`GET`/`POST /policy`, text/plain), the
 * origin side that offers anchors to witnesses and evaluates their proofs (`OfferWitnessing`, the
 * pipeline's `AnchorWitnessing`), and the witness side that answers Offers of the services it agreed to
 * witness for.
 */
export async function createWitnessFeature(
  ctx: NodeContext,
  deps: { activityPub: ActivityPubFeature; vct: VctClientFeature },
): Promise<WitnessFeature> {
  const log = getLogger('witness');
  const { config, urls } = ctx;
  const records = await WitnessingRecords.open(ctx.storage);
  const policy = new WitnessPolicySetting(ctx.configValues);
  const verifier = new CredentialVerifier(
    ctx.didResolver,
    config.federation.actorCacheExpiration,
    ctx.jsonldContexts.documentLoader,
  );

  const witnessing = new OfferWitnessing({
    records,
    candidates: new WitnessCandidates({
      actors: deps.activityPub.actors,
      store: deps.activityPub.store,
      webFinger: createWebFingerClient({
        httpClient: ctx.httpClient,
        cacheTtlMs: config.federation.actorCacheExpiration,
      }),
      serviceId: urls.serviceId,
      ownOrigins: [urls.externalEndpoint, urls.serviceId, urls.serviceEndpoint],
      log,
    }),
    policy,
    outbox: deps.activityPub.outbox,
    verifier,
    log,
    options: {
      serviceEndpoint: urls.serviceEndpoint,
      maxWitnessDelayMs: config.witnessing.maxWitnessDelay,
      maxClockSkewMs: config.witnessing.maxClockSkew,
      gracePeriodMs: config.witnessing.anchorStatusGracePeriod,
      monitoringIntervalMs: config.witnessing.anchorStatusMonitoringInterval,
      expiryMs: config.witnessing.witnessStoreExpiryPeriod,
    },
  });
  deps.activityPub.onAccepted('Offer', (accept, offer) => witnessing.acceptedOffer(accept, offer));
  deps.activityPub.inbox.on(
    'Offer',
    offerHandler({
      store: deps.activityPub.store,
      outbox: deps.activityPub.outbox,
      // As a witness the node always puts its log (when it has one) behind its proof.
      localWitness: new LocalWitness({
        signer: ctx.keys.vcSigner,
        verificationMethod: vcVerificationMethod(urls, ctx.keys),
        domain: config.anchoring.anchorCredentialDomain ?? urls.externalEndpoint,
        useLog: true,
        ownOrigins: [],
        logSetting: deps.vct.logSetting,
        vct: deps.vct.client,
        documentLoader: ctx.jsonldContexts.documentLoader,
      }),
      verifier,
      serviceId: urls.serviceId,
      serviceEndpoint: urls.serviceEndpoint,
      namespace: config.sidetree.didNamespace,
      maxWitnessDelayMs: config.witnessing.maxWitnessDelay,
      log,
    }),
  );

  const getPolicy: Handler = async () => {
    const text = await policy.text();
    if (text === undefined)
      throw notFound(
        'no witness policy is set: the default applies (MinPercent(100,batch) AND MinPercent(100,system))',
      );
    return answer({ text });
  };
  const setPolicy: Handler = async (req) => {
    const body = plainTextBody(req, 'POST /policy takes the witness policy as a text/plain body', {
      jsonStringAsText: true,
    });
    return answer({ text: (await policy.set(body ?? '')) ?? '' });
  };

  return {
    name: 'witness',
    witnessing,
    policy,
    records,
    onProof: (listener) => witnessing.onProof(listener),
    handlers: { getPolicy, setPolicy },
  };
}
