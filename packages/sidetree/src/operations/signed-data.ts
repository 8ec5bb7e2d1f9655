import { goJsonMarshal, parseJws, type ParsedJws } from '@anchor/common/crypto';
import { base64UrlEncode } from '@anchor/common/encoding';
import { AppError, badRequest } from '@anchor/common/errors';
import { isJsonObject, type JsonObject } from '../json.js';
import type { ProtocolParameters } from '../protocol.js';
import type { ParseMode } from './parse-mode.js';

const HEADER_MEMBERS: ReadonlySet<string> = new Set(['alg', 'kid']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface SignedDataReading {
  jws: ParsedJws;
  payload: JsonObject;
}

/**
 * Parses `signedData`: a compact JWS whose protected header holds `alg` (allowed by the protocol) and
 * optionally `kid`, nothing else, and whose payload is a JSON object. The signature itself is checked
 * separately (`signatureProblem`), since anchored operations are only judged at resolution.
 */
export function readSignedData(value: unknown, protocol: ProtocolParameters, mode: ParseMode): SignedDataReading {
  if (value === undefined) throw badRequest('signedData is missing');
  if (typeof value !== 'string') throw badRequest('signedData must be a compact JWS string');
  let jws: ParsedJws;
  try {
    jws = parseJws(value);
  } catch (error) {
    if (error instanceof AppError) throw badRequest(`signedData: ${error.message}`);
    throw error;
  }
  for (const member of Object.keys(jws.header)) {
    if (!HEADER_MEMBERS.has(member))
      throw badRequest(`signedData protected header may hold only alg and kid, not '${member}'`);
  }
  const alg = jws.header.alg as string;
  if (!(protocol.signatureAlgorithms as readonly string[]).includes(alg)) {
    throw badRequest(
      `signedData alg '${alg}' is not allowed by ${protocol.name} (allowed: ${protocol.signatureAlgorithms.join(', ')})`,
    );
  }
  if (jws.header.kid !== undefined && typeof jws.header.kid !== 'string')
    throw badRequest('signedData kid must be a string');
  if (mode === 'ingest' && !hasCanonicalHeader(jws)) {
    throw badRequest(
      'signedData protected header must be compact JSON with sorted members, e.g. {"alg":"EdDSA","kid":"k1"}',
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(utf8.decode(jws.payload));
  } catch {
    throw badRequest('signedData payload is not valid UTF-8 JSON');
  }
  if (!isJsonObject(payload)) throw badRequest('signedData payload must be a JSON object');
  return { jws, payload };
}

/**
 * Orb verifies over `base64url(json.Marshal(header))`, a sorted compact re-serialisation, not
 * over the header segment it received; other implementations use the received segment. Both agree on a
 * signature exactly when the segment already is that re-serialisation, so this is required of every JWS.
 */
export function hasCanonicalHeader(jws: ParsedJws): boolean {
  return jws.headerSegment === base64UrlEncode(goJsonMarshal(jws.header));
}
