import { parseSidetreeDid, type ParsedSidetreeDid } from '../did/parse-sidetree-did.js';
import type { JsonObject } from '../json.js';
import type { ResolutionModel } from '../resolution/types.js';
import { renderDeactivatedIonDocument, renderIonDocument } from './ion-document.js';
import { DID_RESOLUTION_CONTEXT } from './node-document.js';
import type { DidResolutionResult } from './node-resolution.js';

export interface IonRenderOptions {
  /** The identifier as requested (short or long form), parsed or as text. */
  did: ParsedSidetreeDid | string;
  /** Defaults to `did:sidetree`. */
  namespace?: string;
}

/**
 * Renders a resolution result the way the DIF reference implementation does (the DIF vectors):
 * canonicalId = short form when published; a long form lists the short form in equivalentId; a deactivated
 * DID renders under its short form with `deactivated: true` and only `published` in the method metadata.
 */
export function renderIonResolution(model: ResolutionModel, options: IonRenderOptions): DidResolutionResult {
  const did =
    typeof options.did === 'string'
      ? parseSidetreeDid(options.did, { namespace: options.namespace ?? 'did:sidetree' })
      : options.did;
  if (model.deactivated) {
    return {
      '@context': DID_RESOLUTION_CONTEXT,
      didDocument: renderDeactivatedIonDocument(did.shortForm),
      didDocumentMetadata: { method: { published: model.published }, canonicalId: did.shortForm, deactivated: true },
    };
  }
  const method: JsonObject = { published: model.published };
  if (model.recoveryCommitment !== undefined) method.recoveryCommitment = model.recoveryCommitment;
  if (model.updateCommitment !== undefined) method.updateCommitment = model.updateCommitment;
  const metadata: JsonObject = { method };
  if (did.longFormCreate !== undefined) metadata.equivalentId = [did.shortForm];
  if (model.published) metadata.canonicalId = did.shortForm;
  return {
    '@context': DID_RESOLUTION_CONTEXT,
    didDocument: renderIonDocument(model.document, did.did),
    didDocumentMetadata: metadata,
  };
}
