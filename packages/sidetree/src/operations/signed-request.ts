import { badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash, commitmentFromRevealValue, hashMatches } from '../hashing.js';
import { optionalUnixSeconds, rejectUnknownMembers, type JsonObject } from '../json.js';
import { parseSigningKey, type SigningKey } from '../keys/signing-key.js';
import { checkAnchorWindowAtIngest } from './anchor-time.js';
import type { ParseContext } from './parse-context.js';
import { readSignedData, type SignedDataReading } from './signed-data.js';
import type { SignedOperation } from './types.js';
import { algorithmMismatch, signatureProblem } from './verify-signature.js';

const REQUEST_MEMBERS: Readonly<Record<SignedOperation['type'], ReadonlySet<string>>> = {
  update: new Set(['type', 'didSuffix', 'revealValue', 'delta', 'signedData']),
  recover: new Set(['type', 'didSuffix', 'revealValue', 'delta', 'signedData']),
  deactivate: new Set(['type', 'didSuffix', 'revealValue', 'signedData']),
};

export interface SignedEnvelope {
  didSuffix: string;
  revealValue: string;
  revealedCommitment: string;
  signedData: string;
  signed: SignedDataReading;
  signingKey: SigningKey;
  anchorFrom: number | undefined;
  anchorUntil: number | undefined;
}

/**
 * The parts update, recover and deactivate share: didSuffix, revealValue, the signed data and its signing
 * key (`keyMember` = updateKey or recoveryKey), the anchor window, and the reveal check: the reveal value
 * must be the hash of the normalised signing key, in every mode, because it decides which commitment the
 * operation is filed under.
 */
export function readSignedEnvelope(
  request: JsonObject,
  type: SignedOperation['type'],
  keyMember: 'updateKey' | 'recoveryKey',
  payloadMembers: ReadonlySet<string>,
  context: ParseContext,
): SignedEnvelope {
  const { protocol, mode } = context;
  if (mode === 'ingest') rejectUnknownMembers(request, REQUEST_MEMBERS[type], `${type} request`);
  checkEncodedMultihash(request.didSuffix, 'didSuffix', protocol);
  checkEncodedMultihash(request.revealValue, 'revealValue', protocol);
  const didSuffix = request.didSuffix as string;
  const revealValue = request.revealValue as string;
  const signed = readSignedData(request.signedData, protocol, mode);
  const { payload } = signed;
  if (mode === 'ingest') rejectUnknownMembers(payload, payloadMembers, 'signedData payload');
  const signingKey = parseSigningKey(payload[keyMember], `signedData.${keyMember}`, protocol, mode);
  const anchorFrom = optionalUnixSeconds(payload.anchorFrom, 'signedData.anchorFrom');
  const anchorUntil = optionalUnixSeconds(payload.anchorUntil, 'signedData.anchorUntil');
  if (mode === 'ingest' && ((anchorFrom ?? 0) < 0 || (anchorUntil ?? 0) < 0)) throw badRequest('signedData.anchorFrom and anchorUntil must not be negative');
  if (!hashMatches(revealValue, signingKey.canonical)) throw badRequest(`revealValue does not match the hash of signedData.${keyMember}`);
  return {
    didSuffix,
    revealValue,
    revealedCommitment: commitmentFromRevealValue(revealValue),
    signedData: request.signedData as string,
    signed,
    signingKey,
    anchorFrom,
    anchorUntil,
  };
}

/**
 * The ingest checks that come last because they cost the most or depend on the clock: the anchor window
 * against now, the header alg against the key, and the signature.
 */
export function checkSignedOperationAtIngest(operation: SignedOperation, context: ParseContext): void {
  checkAnchorWindowAtIngest(operation, context.now, context.protocol);
  const mismatch = algorithmMismatch(operation);
  if (mismatch) throw badRequest(mismatch);
  const problem = signatureProblem(operation);
  if (problem) throw badRequest(problem);
}
