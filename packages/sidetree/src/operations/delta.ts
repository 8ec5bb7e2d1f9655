import { canonicalize } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash, hashMatches } from '../hashing.js';
import { isJsonObject, rejectUnknownMembers, type JsonObject } from '../json.js';
import type { Patch } from '../patches/types.js';
import { validatePatch } from '../patches/validate-patch.js';
import type { ProtocolParameters } from '../protocol.js';
import type { ParseMode } from './parse-mode.js';
import type { DeltaFields } from './types.js';

const DELTA_MEMBERS: ReadonlySet<string> = new Set(['patches', 'updateCommitment']);

export interface ValidDelta {
  patches: readonly Patch[];
  updateCommitment: string;
}

/**
 * The delta as Orb hashes and stores it: only `patches` and `updateCommitment`, each omitted
 * when empty (`omitempty`); any other member is dropped. Ingest rejects other members, so for requests
 * accepted here this is the delta exactly as sent.
 */
export function normaliseDelta(delta: JsonObject): JsonObject {
  const model: JsonObject = {};
  const { patches, updateCommitment } = delta;
  if (patches !== undefined && patches !== null && !(Array.isArray(patches) && patches.length === 0))
    model.patches = patches;
  if (updateCommitment !== undefined && updateCommitment !== null && updateCommitment !== '')
    model.updateCommitment = updateCommitment;
  return model;
}

/**
 * Validates a normalised delta: canonical size within the limit, a valid update commitment and a non-empty
 * list of valid patches (one invalid patch invalidates the whole delta). `canonical` is JCS of the model,
 * computed once by the caller for the size check and the delta hash alike.
 */
export function validateDelta(
  model: JsonObject,
  canonical: string,
  protocol: ProtocolParameters,
  mode: ParseMode,
): ValidDelta {
  const size = Buffer.byteLength(canonical, 'utf8');
  if (size > protocol.maxDeltaSize)
    throw badRequest(
      `delta is too large: ${size} bytes (canonical JSON) exceeds the maximum of ${protocol.maxDeltaSize}`,
    );
  checkEncodedMultihash(model.updateCommitment, 'delta.updateCommitment', protocol);
  const updateCommitment = model.updateCommitment as string;
  const { patches } = model;
  if (patches === undefined) throw badRequest('delta.patches must be a non-empty array');
  if (!Array.isArray(patches)) throw badRequest('delta.patches must be an array');
  return { updateCommitment, patches: patches.map((patch, index) => validatePatch(patch, index, protocol, mode)) };
}

export interface DeltaReading {
  /** The normalised delta (what is hashed and written to chunk files); absent when no delta object was given. */
  model: JsonObject | undefined;
  /** JCS of `model`. */
  canonical: string | undefined;
  valid: ValidDelta | undefined;
  /** Why the delta cannot be used (missing, malformed, invalid patch, too large); undefined when valid. */
  problem: string | undefined;
}

/**
 * Reads a delta member. Ingest requires a valid delta and throws; anchored mode records the problem, because
 * Orb decides what an invalid delta means at resolution (no update commitment for create and
 * recover, a rejected update).
 */
export function readDelta(value: unknown, protocol: ProtocolParameters, mode: ParseMode): DeltaReading {
  if (mode === 'ingest') {
    if (value === undefined) throw badRequest('delta is missing');
    if (!isJsonObject(value)) throw badRequest('delta must be a JSON object');
    rejectUnknownMembers(value, DELTA_MEMBERS, 'delta');
  }
  if (!isJsonObject(value)) {
    return {
      model: undefined,
      canonical: undefined,
      valid: undefined,
      problem: value === undefined ? 'delta is missing' : 'delta must be a JSON object',
    };
  }
  const model = normaliseDelta(value);
  const canonical = canonicalize(model);
  try {
    return { model, canonical, valid: validateDelta(model, canonical, protocol, mode), problem: undefined };
  } catch (error) {
    if (mode === 'ingest') throw error;
    return { model, canonical, valid: undefined, problem: (error as Error).message };
  }
}

/** A delta read against the hash its operation commits to: the operation's delta fields and the delta's JCS. */
export interface CommittedDelta {
  fields: DeltaFields;
  canonical: string | undefined;
}

/**
 * Reads the delta of a create, update or recover and checks it against `deltaHash` (named `hashMember` in
 * messages). A delta that does not match is refused at ingest and recorded as the delta's problem otherwise.
 */
export function readCommittedDelta(
  value: unknown,
  deltaHash: string,
  hashMember: string,
  protocol: ProtocolParameters,
  mode: ParseMode,
): CommittedDelta {
  const delta = readDelta(value, protocol, mode);
  let deltaProblem = delta.problem;
  if (deltaProblem === undefined && !hashMatches(deltaHash, delta.canonical as string)) {
    deltaProblem = `delta does not match ${hashMember}`;
    if (mode === 'ingest') throw badRequest(deltaProblem);
  }
  const valid = deltaProblem === undefined ? delta.valid : undefined;
  return {
    fields: {
      delta: delta.model,
      patches: valid?.patches,
      nextUpdateCommitment: valid?.updateCommitment,
      deltaProblem,
    },
    canonical: delta.canonical,
  };
}
