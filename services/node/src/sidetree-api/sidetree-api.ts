import type { Answer } from '@anchor/common/http';

export const OPERATIONS_PATH = '/sidetree/v1/operations';
export const IDENTIFIERS_PATH = '/sidetree/v1/identifiers';
/** The Universal Resolver driver interface's path (Orb's separate orb-driver), served by the node itself. */
export const DRIVER_IDENTIFIERS_PATH = '/1.0/identifiers';

/** The two Sidetree endpoints as plain functions of the request's parts. */
export interface SidetreeApi {
  /** POST /sidetree/v1/operations with the raw body. */
  postOperation(body: Buffer | undefined): Promise<Answer>;
  /**
   * GET /sidetree/v1/identifiers/<rawDid> (the path segment as sent) with its versionId / versionTime; the
   * `Accept` header selects the W3C DID Resolution binding (`negotiateResolution`), else Orb's answer.
   */
  getIdentifier(
    rawDid: string,
    versions: { versionId?: string | undefined; versionTime?: string | undefined },
    accept?: string | string[] | undefined,
  ): Promise<Answer>;
}
