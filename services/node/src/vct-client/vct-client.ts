import { VctLogClient, type VctLogClientOptions } from '@anchor/common/clients';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from '@anchor/common/jsonld';
import type { AddVcResponse } from '@anchor/common/vct';

export type VctClientOptions = Omit<VctLogClientOptions, 'allowUndefinedTerms'>;

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

  constructor(options: VctClientOptions) {
    super({ ...options, allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS });
  }

  onLogged(listener: LoggedCredentialListener): void {
    this.listeners.push(listener);
  }

  override async addCredential(logUrl: string, credential: Record<string, unknown>): Promise<AddVcResponse> {
    const promise = await super.addCredential(logUrl, credential);
    for (const listener of this.listeners) await listener(logUrl, credential, promise);
    return promise;
  }
}
