import { badRequest } from '@anchor/common/errors';
import type { JsonObject } from '../json.js';
import { canonicalSignedRequest } from './canonical-request.js';
import type { ParseContext } from './parse-context.js';
import { checkSignedOperationAtIngest, readSignedEnvelope } from './signed-request.js';
import type { DeactivateOperation } from './types.js';

// Both shapes: DIF {didSuffix, recoveryKey} and Go/orb {didSuffix, revealValue, recoveryKey, anchorFrom, anchorUntil}.
const PAYLOAD_MEMBERS: ReadonlySet<string> = new Set(['didSuffix', 'recoveryKey', 'revealValue', 'anchorFrom', 'anchorUntil']);

/** A deactivate: signed by the recovery key; the signed didSuffix must name the DID being deactivated. */
export function parseDeactivate(request: JsonObject, context: ParseContext): DeactivateOperation {
  const { mode } = context;
  const envelope = readSignedEnvelope(request, 'deactivate', 'recoveryKey', PAYLOAD_MEMBERS, context);
  const { payload } = envelope.signed;
  if (payload.didSuffix === undefined) throw badRequest('signedData.didSuffix is missing');
  if (payload.didSuffix !== envelope.didSuffix) {
    throw badRequest(`signedData.didSuffix '${String(payload.didSuffix)}' does not match didSuffix '${envelope.didSuffix}'`);
  }
  if (payload.revealValue !== undefined && typeof payload.revealValue !== 'string') throw badRequest('signedData.revealValue must be a string');
  // orb clients sign "revealValue": ""; a non-empty one must at least be the request's own.
  if (mode === 'ingest' && payload.revealValue !== undefined && payload.revealValue !== '' && payload.revealValue !== envelope.revealValue) {
    throw badRequest('signedData.revealValue does not match revealValue');
  }
  const operation: DeactivateOperation = {
    type: 'deactivate',
    didSuffix: envelope.didSuffix,
    anchorOrigin: undefined,
    revealValue: envelope.revealValue,
    revealedCommitment: envelope.revealedCommitment,
    signedData: envelope.signedData,
    jws: envelope.signed.jws,
    signedPayload: payload,
    signingKey: envelope.signingKey,
    anchorFrom: envelope.anchorFrom,
    anchorUntil: envelope.anchorUntil,
    canonicalRequest: canonicalSignedRequest('deactivate', envelope.didSuffix, envelope.revealValue, envelope.signedData, undefined),
  };
  if (mode === 'ingest') checkSignedOperationAtIngest(operation, context);
  return operation;
}
