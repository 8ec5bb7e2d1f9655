import { badRequest } from '@anchor/common/errors';
import { CONTEXT_URLS } from '@anchor/common/jsonld';
import type { Logger } from '@anchor/common/log';
import { checkAnchorCredential } from '../anchor-model/anchor-credential.js';
import { readAnchorLinkset } from '../anchor-model/anchor-linkset.js';
import type { LocalWitness } from '../anchoring/local-witness.js';
import type { ActivityStore } from '../activitypub/activity-store.js';
import type { Outbox } from '../activitypub/outbox.js';
import {
  ANCHORS_CONTEXT,
  ANCHOR_WITNESS,
  PUBLIC,
  derivedActivityId,
  type StoredActivity,
} from '../activitypub/vocabulary.js';
import type { CredentialVerifier } from '../observer/credential-verifier.js';

export interface WitnessSideDeps {
  store: ActivityStore;
  outbox: Outbox;
  /** This node's proof: log-backed (domain = log URL, created = log timestamp) when it has a log. */
  localWitness: LocalWitness;
  verifier: CredentialVerifier;
  serviceId: string;
  serviceEndpoint: string;
  namespace: string;
  maxWitnessDelayMs: number;
  log: Logger;
}

/**
 * Witnessing for others (orb.md §2.5 "Witness side"): an Offer is witnessed only for a service whose
 * Invite this node accepted (a witness chooses whom it vouches for), only within its time window,
 * and only for a well-formed anchor link whose credential is issued by the offering service and carries
 * valid proofs. The node adds its own proof — log-backed when it has a log — and answers with an Accept
 * whose AnchorReceipt carries the proof. The Accept's id is derived from the Offer's, so an Offer handled
 * twice is answered once.
 */
export function offerHandler(deps: WitnessSideDeps) {
  return async (offer: StoredActivity): Promise<void> => {
    if (!(await deps.store.hasRef('witnessing', deps.serviceId, offer.actor))) {
      throw badRequest(`Offer from ${offer.actor}, whose invitation to witness this node has not accepted`);
    }
    if (offer.target !== ANCHOR_WITNESS) throw badRequest(`an Offer's target must be ${ANCHOR_WITNESS}`);
    const start = Date.parse(String(offer.startTime));
    const end = Date.parse(String(offer.endTime));
    if (!Number.isFinite(start) || !Number.isFinite(end)) throw badRequest('an Offer needs startTime and endTime');
    const now = Date.now();
    if (now > end) throw badRequest(`the Offer expired at ${String(offer.endTime)}`);

    const read = readAnchorLinkset(offer.object, deps.namespace);
    checkAnchorCredential(read.credential, {
      anchor: read.anchor,
      contentAnchor: read.content.linkset[0].anchor,
      profile: read.profile,
    });
    if (read.credential.issuer !== offer.actor)
      throw badRequest(
        `the offered credential is issued by ${String(read.credential.issuer)}, not by the offering service ${offer.actor}`,
      );
    await deps.verifier.verify(read.credential);

    const proof = await deps.localWitness.proof(read.credential as never, []);
    const answeredAt = new Date();
    await deps.outbox.post({
      id: derivedActivityId(deps.serviceEndpoint, `Accept:${offer.id}`),
      type: 'Accept',
      to: [offer.actor, PUBLIC],
      object: {
        id: offer.id,
        type: 'Offer',
        actor: offer.actor,
        to: offer.to ?? [],
        target: ANCHOR_WITNESS,
        object: read.anchor,
      },
      result: {
        '@context': ANCHORS_CONTEXT,
        type: 'AnchorReceipt',
        inReplyTo: read.anchor,
        startTime: answeredAt.toISOString(),
        endTime: new Date(answeredAt.getTime() + deps.maxWitnessDelayMs).toISOString(),
        attachment: [{ '@context': [CONTEXT_URLS.securityV1, CONTEXT_URLS.ed25519Signature2020V1], proof }],
      },
    });
    deps.log.debug('anchor witnessed for another node', () => ({ anchor: read.anchor, for: offer.actor }));
  };
}
