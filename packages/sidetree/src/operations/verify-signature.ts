import { publicKeyFromJwk, type KeyPair } from '@anchor/common/crypto';
import { AppError } from '@anchor/common/errors';
import { hasCanonicalHeader } from './signed-data.js';
import type { SignedOperation } from './types.js';

/**
 * Signature check of a signed operation, memoised per parsed operation: resolution may meet the same parsed
 * object many times (a node can cache parsed operations), and a verification costs far more than the rest.
 *
 * Verification follows Orb: the curve and hash come from the signing key, the header `alg`
 * only had to be allowed by the protocol (checked when parsing). Ingest additionally requires `alg` to be
 * the key's own algorithm (`algorithmMismatch`).
 */
const verdicts = new WeakMap<SignedOperation, string | null>();

/** Why the signature of `operation` does not verify, or undefined when it does. */
export function signatureProblem(operation: SignedOperation): string | undefined {
  let verdict = verdicts.get(operation);
  if (verdict === undefined) {
    verdict = computeProblem(operation) ?? null;
    verdicts.set(operation, verdict);
  }
  return verdict ?? undefined;
}

function computeProblem(operation: SignedOperation): string | undefined {
  if (!hasCanonicalHeader(operation.jws))
    return 'signedData protected header is not sorted compact JSON, so the original cannot verify it';
  let key: KeyPair;
  try {
    key = publicKeyFromJwk(operation.signingKey.jwk);
  } catch (error) {
    if (error instanceof AppError) return `signing key is not a usable public key: ${error.message}`;
    throw error;
  }
  if (key.type === 'X25519') return 'signing key is an X25519 key-agreement key';
  if (!key.verify(Buffer.from(operation.jws.signingInput, 'ascii'), operation.jws.signature))
    return 'signedData signature is invalid';
  return undefined;
}

/** Ingest: the header `alg` must name the algorithm of the signing key's curve. */
export function algorithmMismatch(operation: SignedOperation): string | undefined {
  let key: KeyPair;
  try {
    key = publicKeyFromJwk(operation.signingKey.jwk);
  } catch {
    return undefined; // reported by signatureProblem with the import error
  }
  if (key.type === 'X25519') return undefined;
  const alg = operation.jws.header.alg as string;
  return alg === key.jwsAlgorithm
    ? undefined
    : `signedData alg ${alg} does not match the ${key.type} signing key (expected ${key.jwsAlgorithm})`;
}
