import { base64UrlDecode, base64UrlEncode, isCanonicalBase64Url } from '../encoding/index.js';
import { badRequest } from '../errors/index.js';
import { type Jwk } from './jwk.js';
import { publicKeyFromJwk } from './key-cache.js';
import { KeyPair } from './key-pair.js';
import { type JwsAlgorithm } from './key-types.js';
import {
  checkAlgorithm,
  checkCritical,
  decodeProtectedHeader,
  encodeProtectedHeader,
  headerForKey,
  type JwsHeaderInput,
} from './jws-header.js';

/**
 * JWS compact serialization (RFC 7515 §7.1) as Sidetree operations and Orb use it. The protected
 * header is written as sorted compact JSON because the Go verifier rebuilds the signing input from a sorted
 * re-marshal of the header; our verifier checks the signature over the segments actually received.
 */
export interface ParsedJws {
  header: Record<string, unknown>;
  headerSegment: string;
  payload: Buffer;
  payloadSegment: string;
  signature: Buffer;
  signingInput: string;
}

export interface VerifyJwsOptions {
  /** Algorithms the caller accepts (e.g. a protocol's allowed list); any supported one when absent. */
  algorithms?: readonly JwsAlgorithm[];
}

export function signJws(payload: Uint8Array | string, key: KeyPair, header: JwsHeaderInput = {}): string {
  if (header.b64 !== undefined || header.crit !== undefined) {
    throw badRequest('compact JWS headers carry no b64/crit here; use signDetachedJws for an unencoded payload');
  }
  const signingInput = `${encodeProtectedHeader(headerForKey(key, header))}.${base64UrlEncode(payload)}`;
  return `${signingInput}.${base64UrlEncode(key.sign(Buffer.from(signingInput, 'ascii')))}`;
}

/** Splits and decodes a compact JWS, strictly: 3 parts, canonical unpadded base64url, a JSON object header with a string alg. */
export function parseJws(jws: string): ParsedJws {
  if (typeof jws !== 'string') throw badRequest('JWS must be a string');
  const parts = jws.split('.');
  if (parts.length !== 3) throw badRequest(`JWS must have exactly 3 parts, got ${parts.length}`);
  const [headerSegment, payloadSegment, signatureSegment] = parts as [string, string, string];
  const header = decodeProtectedHeader(headerSegment);
  if (!isCanonicalBase64Url(payloadSegment)) throw badRequest('JWS payload is not canonical unpadded base64url');
  if (signatureSegment.length === 0) throw badRequest('JWS signature is empty');
  if (!isCanonicalBase64Url(signatureSegment)) throw badRequest('JWS signature is not canonical unpadded base64url');
  return {
    header,
    headerSegment,
    payload: base64UrlDecode(payloadSegment),
    payloadSegment,
    signature: base64UrlDecode(signatureSegment),
    signingInput: `${headerSegment}.${payloadSegment}`,
  };
}

/**
 * Verifies a compact JWS (or one already parsed by `parseJws`) and returns it parsed. Throws bad_request
 * naming the reason: 'algorithm none not allowed', 'algorithm X not allowed', 'alg X does not match key
 * type Y', 'unsupported critical header parameter b64', 'signature verification failed', or a parse error.
 */
export function verifyJws(
  jws: string | ParsedJws,
  publicKey: Jwk | KeyPair,
  options: VerifyJwsOptions = {},
): ParsedJws {
  const parsed = typeof jws === 'string' ? parseJws(jws) : jws;
  const key = publicKey instanceof KeyPair ? publicKey : publicKeyFromJwk(publicKey);
  checkAlgorithm(parsed.header.alg as string, key, options.algorithms);
  checkCritical(parsed.header, []);
  if (parsed.header.b64 === false)
    throw badRequest('JWS with an unencoded payload (b64 false) must be verified detached');
  if (!key.verify(Buffer.from(parsed.signingInput, 'ascii'), parsed.signature))
    throw badRequest('signature verification failed');
  return parsed;
}
