import { badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash, hashMatches } from '../hashing.js';
import type { JsonObject } from '../json.js';
import { canonicalSignedRequest } from './canonical-request.js';
import { readDelta } from './delta.js';
import type { ParseContext } from './parse-context.js';
import { checkSignedOperationAtIngest, readSignedEnvelope } from './signed-request.js';
import type { UpdateOperation } from './types.js';

const PAYLOAD_MEMBERS: ReadonlySet<string> = new Set(['updateKey', 'deltaHash', 'anchorFrom', 'anchorUntil']);

/** An update: signed by the key whose commitment is the DID's current update commitment. */
export function parseUpdate(request: JsonObject, context: ParseContext): UpdateOperation {
  const { protocol, mode } = context;
  const envelope = readSignedEnvelope(request, 'update', 'updateKey', PAYLOAD_MEMBERS, context);
  const { payload } = envelope.signed;
  checkEncodedMultihash(payload.deltaHash, 'signedData.deltaHash', protocol);

  const delta = readDelta(request.delta, protocol, mode);
  let deltaProblem = delta.problem;
  if (deltaProblem === undefined && !hashMatches(payload.deltaHash as string, delta.canonical as string)) {
    deltaProblem = 'delta does not match signedData.deltaHash';
    if (mode === 'ingest') throw badRequest(deltaProblem);
  }
  if (mode === 'ingest' && delta.valid?.updateCommitment === envelope.revealedCommitment) {
    throw badRequest('key reuse: delta.updateCommitment is the commitment of the current update key (rotate to a new key)');
  }
  const valid = deltaProblem === undefined ? delta.valid : undefined;
  const operation: UpdateOperation = {
    type: 'update',
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
    delta: delta.model,
    patches: valid?.patches,
    nextUpdateCommitment: valid?.updateCommitment,
    deltaProblem,
    canonicalRequest: canonicalSignedRequest('update', envelope.didSuffix, envelope.revealValue, envelope.signedData, delta.canonical),
  };
  if (mode === 'ingest') checkSignedOperationAtIngest(operation, context);
  return operation;
}
