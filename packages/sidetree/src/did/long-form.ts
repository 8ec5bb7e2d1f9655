import { base64UrlDecode, base64UrlEncode, canonicalize } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { isJsonObject, type JsonObject } from '../json.js';
import { parseOperationRequest } from '../operations/parse-operation.js';
import type { CreateOperation } from '../operations/types.js';
import type { ProtocolParameters } from '../protocol.js';

/** What a long-form DID carries: the create request without its `type`. */
export interface InitialState {
  suffixData: unknown;
  delta: unknown;
}

const INITIAL_STATE_MEMBERS: ReadonlySet<string> = new Set(['suffixData', 'delta', 'type']);

/** `base64url(JCS({delta, suffixData}))`: the last segment of a long-form DID (spec shape, no `type`). */
export function encodeInitialState(state: InitialState): string {
  return base64UrlEncode(canonicalize({ delta: state.delta, suffixData: state.suffixData }));
}

/** `<short-form DID>:<encoded initial state>`. */
export function longFormDid(shortFormDid: string, state: InitialState): string {
  return `${shortFormDid}:${encodeInitialState(state)}`;
}

/** Whether a DID segment is long-form data: it decodes from base64url to a JSON object (orb's rule). */
export function decodesToJsonObject(segment: string): JsonObject | undefined {
  let bytes: Buffer;
  try {
    bytes = base64UrlDecode(segment);
  } catch {
    return undefined;
  }
  // Cheap pre-check: suffixes and anchor hashes decode to binary multihashes, never to '{'.
  if (bytes[0] !== 0x7b) return undefined;
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks the initial state of a long-form DID and returns its create operation: the segment must re-encode
 * byte for byte (base64url of JCS), hold only suffixData, delta and an optional `"type":"create"` (as ION
 * tooling emits it), pass create validation, and hash to the DID's suffix.
 */
export function parseInitialState(
  segment: string,
  expectedSuffix: string,
  protocol: ProtocolParameters,
): CreateOperation {
  const state = decodesToJsonObject(segment);
  if (!state) throw badRequest('long-form DID initial state must be a base64url-encoded JSON object');
  for (const member of Object.keys(state)) {
    if (!INITIAL_STATE_MEMBERS.has(member))
      throw badRequest(`long-form DID initial state has unknown member '${member}'`);
  }
  if (state.type !== undefined && state.type !== 'create')
    throw badRequest("long-form DID initial state type must be 'create'");
  if (base64UrlEncode(canonicalize(state)) !== segment) {
    throw badRequest('long-form DID initial state is not canonical: it must be base64url of its JCS serialization');
  }
  const operation = parseOperationRequest(
    { type: 'create', suffixData: state.suffixData, delta: state.delta },
    { protocol, mode: 'ingest' },
  );
  if (operation.type !== 'create') throw badRequest('long-form DID initial state must be a create operation');
  if (operation.didSuffix !== expectedSuffix) {
    throw badRequest(
      `long-form DID suffix ${expectedSuffix} does not match its initial state (which hashes to ${operation.didSuffix})`,
    );
  }
  return operation;
}
