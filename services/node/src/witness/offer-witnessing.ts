import { badRequest, errorMessage } from '@anchor/common/errors';
import { attachProof, type DataIntegrityProof } from '@anchor/common/jsonld';
import type { Logger } from '@anchor/common/log';
import type { AnchorCredential } from '../anchor-model/anchor-credential.js';
import type { AnchorWitnessing, WitnessOutcome, WitnessRequest } from '../anchoring/witnessing.js';
import type { Outbox } from '../activitypub/outbox.js';
import { ANCHOR_WITNESS, PUBLIC, derivedActivityId, hostOf, type StoredActivity } from '../activitypub/vocabulary.js';
import type { CredentialVerifier } from '../observer/credential-verifier.js';
import { checkProofWindow } from './proof-window.js';
import type { WitnessCandidates } from './witness-candidates.js';
import { evaluateWitnessPolicy, selectWitnesses, type PolicyWitness } from '@anchor/common/witness-policy';
import type { WitnessPolicySetting } from './policy-setting.js';
import { WitnessingRecords, type WitnessEntry, type WitnessingRecord } from './witnessing-records.js';

export interface OfferWitnessingOptions {
  serviceEndpoint: string;
  /** `--max-witness-delay`: an Offer's endTime is this long after it is sent. */
  maxWitnessDelayMs: number;
  /** `--max-clock-skew`: tolerance on a proof's `created`. */
  maxClockSkewMs: number;
  /** `--anchor-status-in-process-grace-period`: how long selected witnesses have before others are asked. */
  gracePeriodMs: number;
  /** `--anchor-status-monitoring-interval`: how often an anchor past its grace period is looked at again. */
  monitoringIntervalMs: number;
  /** `--witness-store-expiry-period`: how long the record of a completed witnessing is kept. */
  expiryMs: number;
}

/** While witnesses are within their grace period, an anchor is re-checked this often (proofs may have arrived on another instance). */
const PROOF_POLL_MS = 1_000;

/**
 * Witnessing by other nodes (orb.md §2.5, the origin side), the `AnchorWitnessing` the anchor pipeline
 * calls until it answers `witnessed`:
 *
 * 1. first call: candidates (batch and system witnesses), a selection by the policy, an Offer of the
 *    anchor to the selected witnesses (`to`: them and the public; startTime, endTime) through the outbox;
 *    none selected → the policy holds with this node's own proof (self-witnessed, as before);
 * 2. each Accept with an AnchorReceipt (`acceptedOffer`) stores the witness's proof once it passed every
 *    check, and tells the proof listeners (the pipeline looks again at once);
 * 3. each call evaluates the policy over the proofs received: satisfied → the credential with every proof;
 * 4. past the grace period, witnesses that did not answer are excluded and others selected in their place
 *    (a new Offer to those only); when nobody can take their place, everyone needed is asked again on the
 *    next round — an anchor is never abandoned (its operations were accepted).
 */
export class OfferWitnessing implements AnchorWitnessing {
  private readonly proofListeners: Array<(anchorId: string) => void> = [];

  constructor(
    private readonly deps: {
      records: WitnessingRecords;
      candidates: WitnessCandidates;
      policy: WitnessPolicySetting;
      outbox: Outbox;
      verifier: CredentialVerifier;
      log: Logger;
      options: OfferWitnessingOptions;
    },
  ) {}

  /** Called with the anchor id each time a witness's proof of it is stored (in this process). */
  onProof(listener: (anchorId: string) => void): void {
    this.proofListeners.push(listener);
  }

  async witness(request: WitnessRequest): Promise<WitnessOutcome> {
    const { records, options } = this.deps;
    const policy = await this.deps.policy.policy();
    let record = await records.anchors.get(request.anchorId);
    if (!record) record = await this.begin(request, policy.logRequired);

    const proofs = (await records.proofsOf(request.anchorId)).filter((proof) =>
      record.witnesses.some((w) => w.uri === proof.witness),
    );
    const proved = new Set(proofs.map((proof) => proof.witness));
    if (evaluateWitnessPolicy(policy, record.witnesses, (uri) => proved.has(uri))) {
      let credential: AnchorCredential = request.credential;
      for (const { proof } of proofs) credential = attachProof(credential, proof) as AnchorCredential;
      await records.anchors.put(record.anchorId, {
        ...record,
        status: 'completed',
        expiresAt: Date.now() + options.expiryMs,
      });
      if (proofs.length > 0)
        this.deps.log.info('anchor witnessed', {
          anchorId: record.anchorId,
          witnesses: proofs.map((proof) => proof.witness),
        });
      return { status: 'witnessed', credential };
    }

    const now = Date.now();
    const graceEnds = record.lastSelectionAt + options.gracePeriodMs;
    if (now < graceEnds)
      return { status: 'pending', recheckAfterMs: Math.max(10, Math.min(PROOF_POLL_MS, graceEnds - now)) };
    await this.reselect(record, request, proved, policy.logRequired);
    return {
      status: 'pending',
      recheckAfterMs: Math.min(PROOF_POLL_MS, options.monitoringIntervalMs, options.gracePeriodMs),
    };
  }

  /**
   * `Accept` of one of my Offers (orb.md §2.5 "Origin side"): the receipt must reply to the offered anchor
   * with exactly one proof, from a candidate witness of that anchor, created within the credential's
   * issuance and the Offer's endTime (± clock skew), by a key of the witness's own host, and valid.
   */
  async acceptedOffer(accept: StoredActivity, offer: StoredActivity): Promise<void> {
    const receipt = accept.result;
    if (typeof receipt !== 'object' || receipt === null || receipt.type !== 'AnchorReceipt')
      throw badRequest('an Accept of an Offer must carry an AnchorReceipt result');
    const anchor = offeredAnchor(offer);
    if (receipt.inReplyTo !== anchor)
      throw badRequest(
        `the AnchorReceipt replies to ${String(receipt.inReplyTo)}, not to the offered anchor ${anchor}`,
      );
    const attachments = receipt.attachment;
    if (!Array.isArray(attachments) || attachments.length !== 1)
      throw badRequest('an AnchorReceipt must carry exactly one attachment (the proof)');
    const proof = proofOf(attachments[0]);

    const record = await this.deps.records.byAnchor(anchor);
    if (!record) throw badRequest(`no anchor ${anchor} is being witnessed (it completed long ago, or never was)`);
    if (record.status === 'completed') {
      this.deps.log.debug('late proof of an anchor already witnessed', () => ({ anchor, witness: accept.actor }));
      return;
    }
    const witness = record.witnesses.find((entry) => entry.uri === accept.actor);
    if (!witness) throw badRequest(`${accept.actor} is not a witness of anchor ${anchor}`);

    checkProofWindow({
      witness: accept.actor,
      created: proof.created,
      issuanceDate: record.credential.issuanceDate,
      offerEndTime: witness.offerEndTime ?? Date.parse(String(offer.endTime)),
      maxClockSkewMs: this.deps.options.maxClockSkewMs,
    });
    const signerHost = proof.verificationMethod.startsWith('did:web:')
      ? hostOf(proof.verificationMethod.split('#')[0] as string)
      : undefined;
    if (signerHost === undefined || signerHost !== hostOf(accept.actor)) {
      throw badRequest(
        `the proof of ${accept.actor} is signed by ${proof.verificationMethod}, not by a did:web key of its own host`,
      );
    }
    const { proof: _own, ...unsigned } = record.credential;
    await this.deps.verifier.verify({ ...unsigned, proof });

    await this.deps.records.proofs.put(WitnessingRecords.proofKey(record.anchorId, accept.actor), {
      anchorId: record.anchorId,
      witness: accept.actor,
      proof,
      receivedAt: Date.now(),
      expiresAt: Date.now() + this.deps.options.expiryMs,
    });
    this.deps.log.debug('witness proof received', () => ({ anchorId: record.anchorId, witness: accept.actor }));
    for (const listener of this.proofListeners) listener(record.anchorId);
  }

  private async begin(request: WitnessRequest, logRequired: boolean): Promise<WitnessingRecord> {
    const candidates = await this.deps.candidates.find(request.batchOrigins, logRequired);
    const record: WitnessingRecord = {
      anchorId: request.anchorId,
      anchor: request.anchor,
      credential: request.credential,
      status: 'witnessing',
      witnesses: candidates.map((candidate) => ({
        uri: candidate.uri,
        roles: [...candidate.roles],
        hasLog: candidate.hasLog,
      })),
      rounds: 0,
      lastSelectionAt: Date.now(),
      createdAt: Date.now(),
    };
    const selection = selectWitnesses(await this.deps.policy.policy(), {
      witnesses: record.witnesses,
      selected: new Set(),
      excluded: new Set(),
    });
    if (!selection.found)
      this.deps.log.warn('not enough witnesses for the witness policy; retrying after the grace period', {
        anchorId: request.anchorId,
        reason: selection.reason,
      });
    else if (selection.additional.length > 0) await this.offer(record, request, selection.additional);
    await this.deps.records.anchors.put(record.anchorId, record);
    return record;
  }

  /** Excludes witnesses silent past their grace period and asks others in their place (orb.md §2.5 "Re-selection"). */
  private async reselect(
    record: WitnessingRecord,
    request: WitnessRequest,
    proved: ReadonlySet<string>,
    logRequired: boolean,
  ): Promise<void> {
    const now = Date.now();
    const policy = await this.deps.policy.policy();
    for (const entry of record.witnesses) {
      if (
        entry.selectedAt !== undefined &&
        !proved.has(entry.uri) &&
        now - entry.selectedAt >= this.deps.options.gracePeriodMs
      )
        entry.excluded = true;
    }
    // Witnesses may have joined (or left) since the anchor began; those that proved stay whatever happens.
    const fresh = await this.deps.candidates.find(request.batchOrigins, logRequired).catch((error: unknown) => {
      this.deps.log.warn('could not refresh the witness candidates', {
        anchorId: record.anchorId,
        err: errorMessage(error),
      });
      return [] as PolicyWitness[];
    });
    for (const candidate of fresh) {
      if (!record.witnesses.some((entry) => entry.uri === candidate.uri))
        record.witnesses.push({ uri: candidate.uri, roles: [...candidate.roles], hasLog: candidate.hasLog });
    }
    const selected = new Set(
      record.witnesses.filter((entry) => entry.selectedAt !== undefined).map((entry) => entry.uri),
    );
    let selection = selectWitnesses(policy, {
      witnesses: record.witnesses,
      selected,
      excluded: excludedOf(record.witnesses),
    });
    if (!selection.found) {
      // Nobody can take the silent witnesses' place: ask everyone needed again (they may be back).
      for (const entry of record.witnesses) if (!proved.has(entry.uri)) delete entry.excluded;
      selection = selectWitnesses(policy, { witnesses: record.witnesses, selected: proved, excluded: new Set() });
    }
    if (selection.found && selection.additional.length > 0) {
      this.deps.log.info('witnesses re-selected', {
        anchorId: record.anchorId,
        silent: [...excludedOf(record.witnesses)],
        asked: selection.additional,
      });
      await this.offer(record, request, selection.additional);
    } else if (!selection.found) {
      this.deps.log.warn('no witnesses can satisfy the witness policy; the anchor waits', {
        anchorId: record.anchorId,
        reason: selection.reason,
      });
    }
    record.lastSelectionAt = now;
    await this.deps.records.anchors.put(record.anchorId, record);
  }

  /** Posts an Offer of the anchor to some witnesses and records whom it asked. */
  private async offer(record: WitnessingRecord, request: WitnessRequest, witnesses: readonly string[]): Promise<void> {
    const now = Date.now();
    const endTime = now + this.deps.options.maxWitnessDelayMs;
    const round = record.rounds + 1;
    // Derived from the round and the witnesses asked: re-posting after a crash is a no-op, a new selection a new Offer.
    const id = derivedActivityId(
      this.deps.options.serviceEndpoint,
      `Offer:${record.anchorId}:${round}:${[...witnesses].sort().join(' ')}`,
    );
    await this.deps.outbox.post({
      id,
      type: 'Offer',
      to: [...witnesses, PUBLIC],
      object: { linkset: [await request.link()] },
      target: ANCHOR_WITNESS,
      startTime: new Date(now).toISOString(),
      endTime: new Date(endTime).toISOString(),
    });
    for (const uri of witnesses) {
      const entry = record.witnesses.find((candidate) => candidate.uri === uri) as WitnessEntry;
      entry.selectedAt = now;
      entry.offerId = id;
      entry.offerEndTime = endTime;
      delete entry.excluded;
    }
    record.rounds = round;
    record.lastSelectionAt = now;
  }
}

function excludedOf(witnesses: readonly WitnessEntry[]): Set<string> {
  return new Set(witnesses.filter((entry) => entry.excluded === true).map((entry) => entry.uri));
}

/** The anchor an Offer of mine offered: `hl:` of the content object, the link's `anchor`. */
function offeredAnchor(offer: StoredActivity): string {
  const linkset = (offer.object as { linkset?: Array<{ anchor?: unknown }> } | undefined)?.linkset;
  const anchor = Array.isArray(linkset) ? linkset[0]?.anchor : undefined;
  if (typeof anchor !== 'string') throw new Error(`my Offer ${offer.id} offers no anchor`);
  return anchor;
}

/** The proof inside an AnchorReceipt attachment: `{"@context": ..., "proof": {...}}` (Orb's shape). */
function proofOf(attachment: unknown): DataIntegrityProof & { created: string; verificationMethod: string } {
  const proof = (attachment as { proof?: unknown } | undefined)?.proof;
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof))
    throw badRequest('the AnchorReceipt attachment carries no proof object');
  const { created, verificationMethod } = proof as { created?: unknown; verificationMethod?: unknown };
  if (typeof created !== 'string' || !Number.isFinite(Date.parse(created)))
    throw badRequest('the witness proof has no valid created time');
  if (typeof verificationMethod !== 'string') throw badRequest('the witness proof names no verificationMethod');
  return proof as DataIntegrityProof & { created: string; verificationMethod: string };
}
