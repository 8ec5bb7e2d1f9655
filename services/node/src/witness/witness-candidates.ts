import { errorMessage } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import { LEDGER_TYPE_VCT_V1, ledgerTypeOf, type WebFingerClient } from '@anchor/common/webfinger';
import type { ActivityStore } from '../activitypub/activity-store.js';
import type { ActorResolver } from '../activitypub/actor-resolver.js';
import type { PolicyWitness, WitnessRole } from '@anchor/common/witness-policy';

export interface WitnessCandidatesDeps {
  actors: ActorResolver;
  store: ActivityStore;
  webFinger: WebFingerClient;
  serviceId: string;
  /** Anchor origins that name this node (its external endpoint and service id). */
  ownOrigins: readonly string[];
  log: Logger;
}

/**
 * The candidate witnesses of an anchor (orb.md §2.5): batch witnesses — the services of the anchor origins
 * of the batch's operations, found through their host's host-meta — and system witnesses — the services
 * that accepted this node's Invite (`witnesses`). This node itself is never a candidate. A batch origin
 * that cannot be resolved is left out, as in Orb. Whether a witness keeps a transparency log
 * (WebFinger ledger type vct-v1) is looked up only when the policy requires logs.
 */
export class WitnessCandidates {
  constructor(private readonly deps: WitnessCandidatesDeps) {}

  async find(batchOrigins: readonly string[], logRequired: boolean): Promise<PolicyWitness[]> {
    const roles = new Map<string, Set<WitnessRole>>();
    const add = (uri: string, role: WitnessRole) => {
      if (uri === this.deps.serviceId) return;
      const set = roles.get(uri) ?? new Set<WitnessRole>();
      set.add(role);
      roles.set(uri, set);
    };
    for (const origin of batchOrigins) {
      if (this.deps.ownOrigins.includes(origin)) continue;
      try {
        add(await this.deps.actors.serviceOfOrigin(origin), 'batch');
      } catch (error) {
        this.deps.log.warn('anchor origin left out of the batch witnesses: its service cannot be found', {
          origin,
          err: errorMessage(error),
        });
      }
    }
    for (const uri of await this.deps.store.allRefIris('witness', this.deps.serviceId)) add(uri, 'system');

    const witnesses: PolicyWitness[] = [];
    for (const [uri, set] of roles) {
      const roleList = [...set].sort();
      if (!logRequired) {
        witnesses.push({ uri, roles: roleList, hasLog: false });
        continue;
      }
      try {
        witnesses.push({ uri, roles: roleList, hasLog: await this.hasLog(uri) });
      } catch (error) {
        this.deps.log.warn('witness left out: its log cannot be looked up', { witness: uri, err: errorMessage(error) });
      }
    }
    return witnesses;
  }

  /** WebFinger of the witness's host for its base URL: ledger type vct-v1 means a transparency log backs its proofs. */
  private async hasLog(uri: string): Promise<boolean> {
    const base = new URL((await this.deps.actors.actor(uri)).inbox).origin;
    return ledgerTypeOf(await this.deps.webFinger.lookup(base, base)) === LEDGER_TYPE_VCT_V1;
  }
}
