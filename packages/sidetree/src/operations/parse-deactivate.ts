import { badRequest } from '@anchor/common/errors';
import type { JsonObject } from '../json.js';
import type { ParseContext } from './parse-context.js';
import { checkSignedOperationAtIngest, readSignedEnvelope, signedCanonicalRequest } from './signed-request.js';
import type { DeactivateOperation } from './types.js';

/** A deactivate: signed by the recovery key; the signed didSuffix must name the DID being deactivated. */
export function parseDeactivate(request: JsonObject, context: ParseContext): DeactivateOperation {
  const envelope = readSignedEnvelope(request, 'deactivate', context);
  const { payload, fields } = envelope;
  if (payload.didSuffix === undefined) throw badRequest('signedData.didSuffix is missing');
  if (payload.didSuffix !== fields.didSuffix) {
    throw badRequest(
      `signedData.didSuffix '${String(payload.didSuffix)}' does not match didSuffix '${fields.didSuffix}'`,
    );
  }
  if (payload.revealValue !== undefined && typeof payload.revealValue !== 'string')
    throw badRequest('signedData.revealValue must be a string');
  // orb clients sign "revealValue": ""; a non-empty one must at least be the request's own.
  if (
    context.mode === 'ingest' &&
    payload.revealValue !== undefined &&
    payload.revealValue !== '' &&
    payload.revealValue !== fields.revealValue
  ) {
    throw badRequest('signedData.revealValue does not match revealValue');
  }
  return checkSignedOperationAtIngest(
    { type: 'deactivate', ...fields, canonicalRequest: signedCanonicalRequest('deactivate', envelope, undefined) },
    context,
  );
}
