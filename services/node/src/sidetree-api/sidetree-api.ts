import { badRequest } from '@anchor/common/errors';
import type { FastAnswer } from '@anchor/common/http';

export const OPERATIONS_PATH = '/sidetree/v1/operations';
export const IDENTIFIERS_PATH = '/sidetree/v1/identifiers';
/** The Universal Resolver driver interface's path (the original's separate orb-driver), served by the node itself. */
export const DRIVER_IDENTIFIERS_PATH = '/1.0/identifiers';

/** A prepared answer of the Sidetree API: the HTTP kit's one fast-route answer. */
export type SidetreeAnswer = FastAnswer;

/** The two Sidetree endpoints as plain functions of the request's parts. */
export interface SidetreeApi {
  /** POST /sidetree/v1/operations with the raw body. */
  postOperation(body: Buffer | undefined): Promise<SidetreeAnswer>;
  /**
   * GET /sidetree/v1/identifiers/<rawDid> (the path segment as sent) with its versionId / versionTime; the
   * `Accept` header selects the W3C DID Resolution binding (`negotiateResolution`), else the original's answer.
   */
  getIdentifier(
    rawDid: string,
    versions: { versionId?: string | undefined; versionTime?: string | undefined },
    accept?: string | string[] | undefined,
  ): Promise<SidetreeAnswer>;
}

/** A query parameter given at most once, as text; undefined when absent. */
export function queryValue(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw badRequest(`${name} must be given once, as a string`);
  return values[0];
}
