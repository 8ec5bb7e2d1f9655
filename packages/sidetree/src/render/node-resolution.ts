import { base64UrlEncode, UNPUBLISHED_ANCHOR } from '@anchor/common/encoding';
import { canonicalDid, DEFAULT_NAMESPACE, httpsDid, referenceDid } from '../did/did-forms.js';
import { parseNodeDid, type ParsedNodeDid } from '../did/parse-node-did.js';
import type { JsonObject } from '../json.js';
import type { AppliedOperation, ResolutionModel } from '../resolution/types.js';
import { DID_RESOLUTION_CONTEXT, renderDeactivatedNodeDocument, renderNodeDocument } from './node-document.js';

export interface DidResolutionResult {
  '@context': string;
  didDocument: JsonObject;
  didDocumentMetadata: JsonObject;
}

export interface NodeRenderOptions {
  /** The identifier as requested (it becomes the document id), parsed or as text. */
  did: ParsedNodeDid | string;
  /** Defaults to `did:node`; used to parse `did` when given as text and to build canonical / equivalent ids. */
  namespace?: string;
  aliases?: readonly string[];
  /** The node's domain (host[:port]) for the https-hinted forms; omitted forms when absent. */
  domain?: string;
  /** Lists the applied published operations in `method.publishedOperations` (default true). */
  includePublishedOperations?: boolean;
}

/**
 * Renders a did:node resolution result (the spec's "DID resolution result" and "States and transitions"):
 *
 * - unpublished: no canonicalId, no versionId; equivalentId = [`<ns>:https:<domain>:uAAA:<suffix>`] (plus the
 *   short form when a long form was requested); method.published = false;
 * - published: canonicalId `<ns>:<anchor hash of the last create/recover>:<suffix>`, first in equivalentId,
 *   followed by the forms of the anchor's equivalent references (hashlink, https) and the https form for
 *   `domain` when not already there; versionId, created, updated; method {anchorOrigin, published,
 *   recoveryCommitment, updateCommitment, publishedOperations};
 * - deactivated: document reduced to context and id, `deactivated: true`, method {anchorOrigin, published}.
 *
 * ```ts
 * const result = renderNodeResolution(model, { did: requestedDid, domain: 'node1.example.com' });
 * ```
 */
export function renderNodeResolution(model: ResolutionModel, options: NodeRenderOptions): DidResolutionResult {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const did =
    typeof options.did === 'string'
      ? parseNodeDid(options.did, { namespace, aliases: options.aliases ?? [] })
      : options.did;
  const metadata: JsonObject = {};
  const { canonicalId, equivalentId } = identifiers(model, did, namespace, options.domain);
  if (canonicalId !== undefined) metadata.canonicalId = canonicalId;
  if (equivalentId.length > 0) metadata.equivalentId = equivalentId;
  if (model.versionId !== undefined) metadata.versionId = model.versionId;
  if (model.createdTime !== undefined) metadata.created = rfc3339(model.createdTime);
  if (model.updatedTime !== undefined) metadata.updated = rfc3339(model.updatedTime);

  const method: JsonObject = {};
  if (model.anchorOrigin !== undefined) method.anchorOrigin = model.anchorOrigin;
  method.published = model.published;
  if (model.deactivated) {
    metadata.deactivated = true;
    metadata.method = method;
    return {
      '@context': DID_RESOLUTION_CONTEXT,
      didDocument: renderDeactivatedNodeDocument(did.did),
      didDocumentMetadata: metadata,
    };
  }
  if (model.recoveryCommitment !== undefined) method.recoveryCommitment = model.recoveryCommitment;
  if (model.updateCommitment !== undefined) method.updateCommitment = model.updateCommitment;
  if (options.includePublishedOperations ?? true) {
    const published = publishedOperations(model.appliedOperations);
    if (published.length > 0) method.publishedOperations = published;
  }
  metadata.method = method;
  return {
    '@context': DID_RESOLUTION_CONTEXT,
    didDocument: renderNodeDocument(model.document, did.did),
    didDocumentMetadata: metadata,
  };
}

function identifiers(
  model: ResolutionModel,
  did: ParsedNodeDid,
  namespace: string,
  domain: string | undefined,
): { canonicalId: string | undefined; equivalentId: string[] } {
  const suffix = model.didSuffix;
  const equivalentId: string[] = [];
  const add = (id: string): void => {
    if (!equivalentId.includes(id)) equivalentId.push(id);
  };
  if (model.canonicalReference === undefined) {
    if (domain !== undefined) add(httpsDid(domain, UNPUBLISHED_ANCHOR, suffix, namespace));
    if (did.longFormCreate !== undefined) add(did.shortForm);
    return { canonicalId: undefined, equivalentId };
  }
  const canonicalId = canonicalDid(model.canonicalReference, suffix, namespace);
  add(canonicalId);
  for (const reference of model.equivalentReferences) add(referenceDid(reference, suffix, namespace));
  if (domain !== undefined) add(httpsDid(domain, model.canonicalReference, suffix, namespace));
  return { canonicalId, equivalentId };
}

/** The applied published operations, one per anchor, as `method.publishedOperations` lists them. */
function publishedOperations(applied: readonly AppliedOperation[]): JsonObject[] {
  const seen = new Set<string>();
  const listed: JsonObject[] = [];
  for (const operation of applied) {
    if (!operation.published || operation.canonicalReference === undefined || seen.has(operation.canonicalReference))
      continue;
    seen.add(operation.canonicalReference);
    const item: JsonObject = {};
    if (operation.anchorOrigin !== undefined) item.anchorOrigin = operation.anchorOrigin;
    item.canonicalReference = operation.canonicalReference;
    item.equivalentReferences = [...operation.equivalentReferences];
    item.operationRequest = base64UrlEncode(operation.operation.canonicalRequest);
    item.protocolVersion = operation.protocolVersion;
    item.transactionNumber = operation.transactionNumber;
    item.transactionTime = operation.transactionTime;
    item.type = operation.type;
    listed.push(item);
  }
  return listed;
}

/** RFC 3339 in UTC without sub-second digits, e.g. `2021-05-10T17:00:00Z`. */
export function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
