import { VctLogClient, type VctLogClientOptions } from '@anchor/common/clients';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from '@anchor/common/jsonld';

export type VctClientOptions = Omit<VctLogClientOptions, 'allowUndefinedTerms'>;

/**
 * The node's client of its transparency log: the common log client for anchor credentials, whose subject
 * carries terms (href, rel, AnchorLink) that no context defines.
 */
export class VctClient extends VctLogClient {
  constructor(options: VctClientOptions) {
    super({ ...options, allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS });
  }
}
