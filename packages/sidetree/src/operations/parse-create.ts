import { canonicalize } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash, hashBytes } from '../hashing.js';
import { optionalString, rejectUnknownMembers, requireObject, type JsonObject } from '../json.js';
import { canonicalCreateRequest } from './canonical-request.js';
import { readCommittedDelta } from './delta.js';
import type { ParseContext } from './parse-context.js';
import type { CreateOperation, SuffixData } from './types.js';

const CREATE_MEMBERS: ReadonlySet<string> = new Set(['type', 'suffixData', 'delta']);
const SUFFIX_DATA_MEMBERS: ReadonlySet<string> = new Set(['deltaHash', 'recoveryCommitment', 'anchorOrigin', 'type']);
// ION's rule for the optional suffixData type: a short base64url tag.
const SUFFIX_TYPE = /^[A-Za-z0-9_-]{1,4}$/;

/**
 * A create: the DID suffix is the hash of JCS(suffixData) including did:node's anchorOrigin, so the origin is
 * bound to the DID. At ingest the delta must be valid, hash to suffixData.deltaHash, and not reuse the
 * recovery key as update key.
 */
export function parseCreate(request: JsonObject, context: ParseContext): CreateOperation {
  const { protocol, mode } = context;
  if (mode === 'ingest') rejectUnknownMembers(request, CREATE_MEMBERS, 'create request');
  const suffixData = readSuffixData(request.suffixData, context);
  const canonicalSuffixData = canonicalize(suffixData);
  const didSuffix = hashBytes(canonicalSuffixData, protocol.multihashAlgorithms[0]);
  const anchorOrigin = typeof suffixData.anchorOrigin === 'string' ? suffixData.anchorOrigin : undefined;
  if (mode === 'ingest' && protocol.requireAnchorOrigin && anchorOrigin === undefined) {
    throw badRequest('anchor origin must be specified (suffixData.anchorOrigin)');
  }

  const delta = readCommittedDelta(request.delta, suffixData.deltaHash, 'suffixData.deltaHash', protocol, mode);
  if (mode === 'ingest' && delta.fields.nextUpdateCommitment === suffixData.recoveryCommitment) {
    throw badRequest(
      'key reuse: delta.updateCommitment equals suffixData.recoveryCommitment (use different update and recovery keys)',
    );
  }
  return {
    type: 'create',
    didSuffix,
    anchorOrigin,
    suffixData,
    nextRecoveryCommitment: suffixData.recoveryCommitment,
    ...delta.fields,
    canonicalRequest: canonicalCreateRequest(canonicalSuffixData, delta.canonical),
  };
}

/** suffixData reduced to the members Orb hashes (unknown members are rejected at ingest). */
function readSuffixData(value: unknown, context: ParseContext): SuffixData {
  const { protocol, mode } = context;
  const object = requireObject(value, 'suffixData');
  if (mode === 'ingest') rejectUnknownMembers(object, SUFFIX_DATA_MEMBERS, 'suffixData');
  checkEncodedMultihash(object.deltaHash, 'suffixData.deltaHash', protocol);
  checkEncodedMultihash(object.recoveryCommitment, 'suffixData.recoveryCommitment', protocol);

  const type = optionalString(object.type, 'suffixData.type');
  if (mode === 'ingest' && type !== undefined && !SUFFIX_TYPE.test(type))
    throw badRequest('suffixData.type must be 1 to 4 base64url characters');

  const { anchorOrigin } = object;
  if (
    mode === 'ingest' &&
    anchorOrigin !== undefined &&
    (typeof anchorOrigin !== 'string' || anchorOrigin.length === 0)
  ) {
    throw badRequest('suffixData.anchorOrigin must be a non-empty string');
  }
  // Members in JCS order, so that canonicalising it is a plain JSON.stringify (see `canonicalize`).
  const suffixData = {} as SuffixData;
  // Go holds anchorOrigin as interface{} with omitempty: any non-null value is hashed as given.
  if (anchorOrigin !== undefined && anchorOrigin !== null) suffixData.anchorOrigin = anchorOrigin;
  suffixData.deltaHash = object.deltaHash as string;
  suffixData.recoveryCommitment = object.recoveryCommitment as string;
  if (type !== undefined && type !== '') suffixData.type = type;
  return suffixData;
}
