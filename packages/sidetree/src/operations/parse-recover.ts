import { badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash } from '../hashing.js';
import type { JsonObject } from '../json.js';
import type { ParseContext } from './parse-context.js';
import {
  checkSignedOperationAtIngest,
  readSignedDelta,
  readSignedEnvelope,
  signedCanonicalRequest,
} from './signed-request.js';
import type { RecoverOperation } from './types.js';

/**
 * A recover: signed by the key committed to by the current recovery commitment; sets a new recovery
 * commitment, a new document (from scratch) and, on did:node, a new anchor origin.
 */
export function parseRecover(request: JsonObject, context: ParseContext): RecoverOperation {
  const { mode } = context;
  const envelope = readSignedEnvelope(request, 'recover', context);
  const { payload } = envelope;
  checkEncodedMultihash(payload.recoveryCommitment, 'signedData.recoveryCommitment', context.protocol);
  const nextRecoveryCommitment = payload.recoveryCommitment as string;
  const anchorOrigin = readAnchorOrigin(payload.anchorOrigin, context);

  const delta = readSignedDelta(request, envelope, context);
  if (mode === 'ingest') {
    if (nextRecoveryCommitment === envelope.fields.revealedCommitment) {
      throw badRequest(
        'key reuse: signedData.recoveryCommitment is the commitment of the current recovery key (rotate to a new key)',
      );
    }
    if (delta.fields.nextUpdateCommitment === nextRecoveryCommitment) {
      throw badRequest(
        'key reuse: delta.updateCommitment equals signedData.recoveryCommitment (use different update and recovery keys)',
      );
    }
  }
  return checkSignedOperationAtIngest(
    {
      type: 'recover',
      ...envelope.fields,
      anchorOrigin,
      nextRecoveryCommitment,
      ...delta.fields,
      canonicalRequest: signedCanonicalRequest('recover', envelope, delta.canonical),
    },
    context,
  );
}

function readAnchorOrigin(value: unknown, context: ParseContext): string | undefined {
  if (context.mode === 'ingest') {
    if (value === undefined) {
      if (context.protocol.requireAnchorOrigin)
        throw badRequest('anchor origin must be specified (signedData.anchorOrigin)');
      return undefined;
    }
    if (typeof value !== 'string' || value.length === 0)
      throw badRequest('signedData.anchorOrigin must be a non-empty string');
  }
  return typeof value === 'string' ? value : undefined;
}
