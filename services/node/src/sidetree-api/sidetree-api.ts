import { badRequest } from '@anchor/common/errors';

export const OPERATIONS_PATH = '/sidetree/v1/operations';
export const IDENTIFIERS_PATH = '/sidetree/v1/identifiers';

/** A prepared answer of the Sidetree API: what both the express routes and the fast path send. */
export interface SidetreeAnswer {
  contentType: string;
  body: string;
}

/** The two Sidetree endpoints as plain functions of the request's parts. */
export interface SidetreeApi {
  /** POST /sidetree/v1/operations with the raw body. */
  postOperation(body: Buffer | undefined): Promise<SidetreeAnswer>;
  /** GET /sidetree/v1/identifiers/<rawDid> (the path segment as sent) with its versionId / versionTime. */
  getIdentifier(rawDid: string, versions: { versionId?: string | undefined; versionTime?: string | undefined }): Promise<SidetreeAnswer>;
}

/** A query parameter given at most once, as text (express's parsed query, or URLSearchParams.getAll). */
export function queryValue(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  if (typeof value !== 'string') throw badRequest(`${name} must be given once, as a string`);
  return value;
}
