import { base64UrlDecode, base64UrlEncode, isCanonicalBase64Url } from '../encoding/index.js';
import { badRequest } from '../errors/index.js';
import { goJsonMarshal } from './go-json.js';
import type { KeyPair } from './key-pair.js';
import { isJwsAlgorithm, type JwsAlgorithm } from './key-types.js';

/** Protected header members a caller may set; `alg` defaults to the key's algorithm. */
export interface JwsHeaderInput {
  alg?: JwsAlgorithm;
  kid?: string;
  [member: string]: unknown;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** base64url of the header as sorted compact JSON, the only form Orb verifies. */
export function encodeProtectedHeader(header: Record<string, unknown>): string {
  return base64UrlEncode(goJsonMarshal(header));
}

/** The header with `alg` filled in from the key, refusing an `alg` the key cannot produce. */
export function headerForKey(key: KeyPair, header: JwsHeaderInput): Record<string, unknown> & { alg: JwsAlgorithm } {
  const algorithm = key.jwsAlgorithm;
  if (header.alg !== undefined && header.alg !== algorithm) {
    throw badRequest(`alg ${String(header.alg)} does not match key type ${key.type} (${algorithm})`);
  }
  return { ...header, alg: algorithm };
}

/** Decodes and checks a protected header segment: canonical base64url of UTF-8 JSON, an object with a string `alg`. */
export function decodeProtectedHeader(segment: string): Record<string, unknown> & { alg: string } {
  if (segment.length === 0) throw badRequest('JWS protected header is empty');
  if (!isCanonicalBase64Url(segment)) throw badRequest('JWS protected header is not canonical unpadded base64url');
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(base64UrlDecode(segment)));
  } catch {
    throw badRequest('JWS protected header is not valid UTF-8 JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    throw badRequest('JWS protected header must be a JSON object');
  const { alg } = header as Record<string, unknown>;
  if (typeof alg !== 'string') throw badRequest('JWS protected header alg must be a string');
  return header as Record<string, unknown> & { alg: string };
}

/** Checks a header's `alg` against an allow-list and against the verifying key; throws with the precise reason. */
export function checkAlgorithm(alg: string, key: KeyPair, allowed?: readonly JwsAlgorithm[]): JwsAlgorithm {
  if (alg === 'none') throw badRequest('algorithm none not allowed');
  if (!isJwsAlgorithm(alg)) throw badRequest(`unsupported algorithm ${alg}`);
  if (allowed && !allowed.includes(alg)) throw badRequest(`algorithm ${alg} not allowed`);
  if (key.type === 'X25519' || alg !== key.jwsAlgorithm)
    throw badRequest(`alg ${alg} does not match key type ${key.type}`);
  return alg;
}

/** RFC 7515 §4.1.11: a `crit` list must be a non-empty array of names present in the header, all understood. */
export function checkCritical(header: Record<string, unknown>, understood: readonly string[]): void {
  const { crit } = header;
  if (crit === undefined) return;
  if (!Array.isArray(crit) || crit.length === 0 || !crit.every((name): name is string => typeof name === 'string')) {
    throw badRequest('JWS crit must be a non-empty array of strings');
  }
  for (const name of crit) {
    if (!understood.includes(name)) throw badRequest(`unsupported critical header parameter ${name}`);
    if (!(name in header)) throw badRequest(`critical header parameter ${name} is missing`);
  }
}
