import { VctLogClient, type VctLogClientOptions } from '@anchor/common/clients';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from '@anchor/common/jsonld';
import { observeDuration } from '@anchor/common/metrics';
import type { AddVcResponse } from '@anchor/common/vct';
import type { NodeMetrics } from '../observability/node-metrics.js';

export type VctClientOptions = Omit<VctLogClientOptions, 'allowUndefinedTerms'> & { metrics: NodeMetrics };

/** Told of every credential the node has logged, before the log's promise is used. */
export type LoggedCredentialListener = (
  logUrl: string,
  credential: Record<string, unknown>,
  promise: AddVcResponse,
) => Promise<void>;

/**
 * The node's client of its transparency log: the common log client for anchor credentials, whose subject
 * carries terms (href, rel, AnchorLink) that no context defines. Proof monitoring listens to what it logs:
 * a listener that fails fails the add, so a promise is never used without being watched.
 */
export class VctClient extends VctLogClient {
  private readonly listeners: LoggedCredentialListener[] = [];

  private readonly metrics: NodeMetrics;

  constructor({ metrics, ...options }: VctClientOptions) {
    super({ ...options, allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS });
    this.metrics = metrics;
  }

  onLogged(listener: LoggedCredentialListener): void {
    this.listeners.push(listener);
  }

  override async addCredential(logUrl: string, credential: Record<string, unknown>): Promise<AddVcResponse> {
    const promise = await observeDuration(this.metrics.vctAddVcSeconds, {}, () =>
      super.addCredential(logUrl, credential),
    );
    for (const listener of this.listeners) await listener(logUrl, credential, promise);
    return promise;
  }
}
