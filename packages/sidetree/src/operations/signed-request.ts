import { badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash, commitmentFromRevealValue, hashMatches } from '../hashing.js';
import { optionalUnixSeconds, rejectUnknownMembers, type JsonObject } from '../json.js';
import { parseSigningKey } from '../keys/signing-key.js';
import { checkAnchorWindowAtIngest } from './anchor-time.js';
import type { ParseContext } from './parse-context.js';
import { canonicalSignedRequest } from './canonical-request.js';
import { readCommittedDelta, type CommittedDelta } from './delta.js';
import { readSignedData } from './signed-data.js';
import type { SignedOperation, SignedOperationBase } from './types.js';
import { algorithmMismatch, signatureProblem } from './verify-signature.js';

interface SignedShape {
  requestMembers: ReadonlySet<string>;
  payloadMembers: ReadonlySet<string>;
  /** The member of the payload holding the signing key, whose commitment the reveal value opens. */
  keyMember: 'updateKey' | 'recoveryKey';
  /** Whether the payload commits to a delta (signedData.deltaHash). */
  carriesDelta: boolean;
}

const SHAPES: Readonly<Record<SignedOperation['type'], SignedShape>> = {
  update: {
    requestMembers: new Set(['type', 'didSuffix', 'revealValue', 'delta', 'signedData']),
    payloadMembers: new Set(['updateKey', 'deltaHash', 'anchorFrom', 'anchorUntil']),
    keyMember: 'updateKey',
    carriesDelta: true,
  },
  recover: {
    requestMembers: new Set(['type', 'didSuffix', 'revealValue', 'delta', 'signedData']),
    payloadMembers: new Set([
      'deltaHash',
      'recoveryKey',
      'recoveryCommitment',
      'anchorOrigin',
      'anchorFrom',
      'anchorUntil',
    ]),
    keyMember: 'recoveryKey',
    carriesDelta: true,
  },
  deactivate: {
    requestMembers: new Set(['type', 'didSuffix', 'revealValue', 'signedData']),
    // Both shapes: DIF {didSuffix, recoveryKey} and Go/orb {didSuffix, revealValue, recoveryKey, anchorFrom, anchorUntil}.
    payloadMembers: new Set(['didSuffix', 'recoveryKey', 'revealValue', 'anchorFrom', 'anchorUntil']),
    keyMember: 'recoveryKey',
    carriesDelta: false,
  },
};

/** The members every signed operation has, read from its envelope (`anchorOrigin`: only a recover names one). */
export type SignedFields = Omit<SignedOperationBase, 'type' | 'canonicalRequest'>;

export interface SignedEnvelope {
  fields: SignedFields;
  /** The JWS payload as decoded. */
  payload: JsonObject;
}

/**
 * The parts update, recover and deactivate share: didSuffix, revealValue, the signed data and its signing
 * key (updateKey or recoveryKey), the anchor window, the reveal check (the reveal value must be the hash of
 * the normalised signing key, in every mode, because it decides which commitment the operation is filed
 * under) and, for update and recover, the form of signedData.deltaHash.
 */
export function readSignedEnvelope(
  request: JsonObject,
  type: SignedOperation['type'],
  context: ParseContext,
): SignedEnvelope {
  const { protocol, mode } = context;
  const shape = SHAPES[type];
  if (mode === 'ingest') rejectUnknownMembers(request, shape.requestMembers, `${type} request`);
  checkEncodedMultihash(request.didSuffix, 'didSuffix', protocol);
  checkEncodedMultihash(request.revealValue, 'revealValue', protocol);
  const didSuffix = request.didSuffix as string;
  const revealValue = request.revealValue as string;
  const { jws, payload } = readSignedData(request.signedData, protocol, mode);
  if (mode === 'ingest') rejectUnknownMembers(payload, shape.payloadMembers, 'signedData payload');
  const signingKey = parseSigningKey(payload[shape.keyMember], `signedData.${shape.keyMember}`, protocol, mode);
  const anchorFrom = optionalUnixSeconds(payload.anchorFrom, 'signedData.anchorFrom');
  const anchorUntil = optionalUnixSeconds(payload.anchorUntil, 'signedData.anchorUntil');
  if (mode === 'ingest' && ((anchorFrom ?? 0) < 0 || (anchorUntil ?? 0) < 0))
    throw badRequest('signedData.anchorFrom and anchorUntil must not be negative');
  if (!hashMatches(revealValue, signingKey.canonical))
    throw badRequest(`revealValue does not match the hash of signedData.${shape.keyMember}`);
  if (shape.carriesDelta) checkEncodedMultihash(payload.deltaHash, 'signedData.deltaHash', protocol);
  return {
    fields: {
      didSuffix,
      anchorOrigin: undefined,
      revealValue,
      revealedCommitment: commitmentFromRevealValue(revealValue),
      signedData: request.signedData as string,
      jws,
      signedPayload: payload,
      signingKey,
      anchorFrom,
      anchorUntil,
    },
    payload,
  };
}

/** The delta of an update or recover, checked against signedData.deltaHash (see `readCommittedDelta`). */
export function readSignedDelta(request: JsonObject, envelope: SignedEnvelope, context: ParseContext): CommittedDelta {
  return readCommittedDelta(
    request.delta,
    envelope.payload.deltaHash as string,
    'signedData.deltaHash',
    context.protocol,
    context.mode,
  );
}

/** The canonical request of a signed operation (see `canonicalSignedRequest`). */
export function signedCanonicalRequest(
  type: SignedOperation['type'],
  envelope: SignedEnvelope,
  canonicalDelta: string | undefined,
): Buffer {
  const { didSuffix, revealValue, signedData } = envelope.fields;
  return canonicalSignedRequest(type, didSuffix, revealValue, signedData, canonicalDelta);
}

/**
 * The ingest checks that come last because they cost the most or depend on the clock: the anchor window
 * against now, the header alg against the key, and the signature. Other modes take the operation as it is.
 */
export function checkSignedOperationAtIngest<T extends SignedOperation>(operation: T, context: ParseContext): T {
  if (context.mode !== 'ingest') return operation;
  checkAnchorWindowAtIngest(operation, context.now, context.protocol);
  const mismatch = algorithmMismatch(operation);
  if (mismatch) throw badRequest(mismatch);
  const problem = signatureProblem(operation);
  if (problem) throw badRequest(problem);
  return operation;
}
