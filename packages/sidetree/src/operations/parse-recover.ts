import { badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash, hashMatches } from '../hashing.js';
import type { JsonObject } from '../json.js';
import { canonicalSignedRequest } from './canonical-request.js';
import { readDelta } from './delta.js';
import type { ParseContext } from './parse-context.js';
import { checkSignedOperationAtIngest, readSignedEnvelope } from './signed-request.js';
import type { RecoverOperation } from './types.js';

const PAYLOAD_MEMBERS: ReadonlySet<string> = new Set(['deltaHash', 'recoveryKey', 'recoveryCommitment', 'anchorOrigin', 'anchorFrom', 'anchorUntil']);

/**
 * A recover: signed by the key committed to by the current recovery commitment; sets a new recovery
 * commitment, a new document (from scratch) and, on did:node, a new anchor origin.
 */
export function parseRecover(request: JsonObject, context: ParseContext): RecoverOperation {
  const { protocol, mode } = context;
  const envelope = readSignedEnvelope(request, 'recover', 'recoveryKey', PAYLOAD_MEMBERS, context);
  const { payload } = envelope.signed;
  checkEncodedMultihash(payload.deltaHash, 'signedData.deltaHash', protocol);
  checkEncodedMultihash(payload.recoveryCommitment, 'signedData.recoveryCommitment', protocol);
  const nextRecoveryCommitment = payload.recoveryCommitment as string;
  const anchorOrigin = readAnchorOrigin(payload.anchorOrigin, context);

  const delta = readDelta(request.delta, protocol, mode);
  let deltaProblem = delta.problem;
  if (deltaProblem === undefined && !hashMatches(payload.deltaHash as string, delta.canonical as string)) {
    deltaProblem = 'delta does not match signedData.deltaHash';
    if (mode === 'ingest') throw badRequest(deltaProblem);
  }
  if (mode === 'ingest') {
    if (nextRecoveryCommitment === envelope.revealedCommitment) {
      throw badRequest('key reuse: signedData.recoveryCommitment is the commitment of the current recovery key (rotate to a new key)');
    }
    if (delta.valid?.updateCommitment === nextRecoveryCommitment) {
      throw badRequest('key reuse: delta.updateCommitment equals signedData.recoveryCommitment (use different update and recovery keys)');
    }
  }
  const valid = deltaProblem === undefined ? delta.valid : undefined;
  const operation: RecoverOperation = {
    type: 'recover',
    didSuffix: envelope.didSuffix,
    anchorOrigin,
    revealValue: envelope.revealValue,
    revealedCommitment: envelope.revealedCommitment,
    signedData: envelope.signedData,
    jws: envelope.signed.jws,
    signedPayload: payload,
    signingKey: envelope.signingKey,
    anchorFrom: envelope.anchorFrom,
    anchorUntil: envelope.anchorUntil,
    nextRecoveryCommitment,
    delta: delta.model,
    patches: valid?.patches,
    nextUpdateCommitment: valid?.updateCommitment,
    deltaProblem,
    canonicalRequest: canonicalSignedRequest('recover', envelope.didSuffix, envelope.revealValue, envelope.signedData, delta.canonical),
  };
  if (mode === 'ingest') checkSignedOperationAtIngest(operation, context);
  return operation;
}

function readAnchorOrigin(value: unknown, context: ParseContext): string | undefined {
  if (context.mode === 'ingest') {
    if (value === undefined) {
      if (context.protocol.requireAnchorOrigin) throw badRequest('anchor origin must be specified (signedData.anchorOrigin)');
      return undefined;
    }
    if (typeof value !== 'string' || value.length === 0) throw badRequest('signedData.anchorOrigin must be a non-empty string');
  }
  return typeof value === 'string' ? value : undefined;
}
