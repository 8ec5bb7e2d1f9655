import { badRequest } from '@anchor/common/errors';
import type { JsonObject } from '../json.js';
import type { ParseContext } from './parse-context.js';
import {
  checkSignedOperationAtIngest,
  readSignedDelta,
  readSignedEnvelope,
  signedCanonicalRequest,
} from './signed-request.js';
import type { UpdateOperation } from './types.js';

/** An update: signed by the key whose commitment is the DID's current update commitment. */
export function parseUpdate(request: JsonObject, context: ParseContext): UpdateOperation {
  const envelope = readSignedEnvelope(request, 'update', context);
  const delta = readSignedDelta(request, envelope, context);
  if (context.mode === 'ingest' && delta.fields.nextUpdateCommitment === envelope.fields.revealedCommitment) {
    throw badRequest(
      'key reuse: delta.updateCommitment is the commitment of the current update key (rotate to a new key)',
    );
  }
  return checkSignedOperationAtIngest(
    {
      type: 'update',
      ...envelope.fields,
      ...delta.fields,
      canonicalRequest: signedCanonicalRequest('update', envelope, delta.canonical),
    },
    context,
  );
}
