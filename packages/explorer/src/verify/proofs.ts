import { base58btcDecode, concat, sha256, utf8 } from './bytes.js';
import type { Check } from './anchor.js';

/** Canonical N-Quads of a JSON-LD document (`canon.ts`, loaded with the verifier). */
export type Canonicalize = (document: Record<string, unknown>) => Promise<string>;

/** The raw Ed25519 key of a verification method, or why there is none. */
export type KeyLookup = (verificationMethod: string) => Promise<Uint8Array>;

export interface Proof {
  type?: unknown;
  verificationMethod?: unknown;
  proofValue?: unknown;
  domain?: unknown;
  created?: unknown;
  [member: string]: unknown;
}

export function proofsOf(credential: Record<string, unknown>): Proof[] {
  const proof = credential['proof'];
  if (proof === undefined) return [];
  return (Array.isArray(proof) ? proof : [proof]) as Proof[];
}

/** The 32 key bytes of an Ed25519 `publicKeyMultibase` (`z` + base58btc of the multicodec 0xed01 prefix and key). */
export function ed25519KeyOfMultibase(multibase: string): Uint8Array {
  if (!multibase.startsWith('z')) throw new Error('publicKeyMultibase is not base58btc');
  const bytes = base58btcDecode(multibase);
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01)
    throw new Error('publicKeyMultibase is not an Ed25519 key');
  return bytes.subarray(2);
}

/** The Ed25519 key of `verificationMethod` in a controller (DID) document, or an error naming what is missing. */
export function keyInDocument(document: unknown, verificationMethod: string): Uint8Array {
  const methods = (document as { verificationMethod?: unknown } | null)?.verificationMethod;
  const method = Array.isArray(methods)
    ? (methods as Array<Record<string, unknown>>).find((entry) => entry['id'] === verificationMethod)
    : undefined;
  if (method === undefined) throw new Error(`${verificationMethod} is not in its DID document`);
  if (typeof method['publicKeyMultibase'] !== 'string')
    throw new Error(`${verificationMethod} has no publicKeyMultibase`);
  return ed25519KeyOfMultibase(method['publicKeyMultibase']);
}

/** WebCrypto Ed25519 (chromium and node both have it): false for a wrong signature or key. */
export async function ed25519Verify(publicKey: Uint8Array, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const key = await crypto.subtle.importKey('raw', publicKey as BufferSource, { name: 'Ed25519' }, false, ['verify']);
  return crypto.subtle.verify({ name: 'Ed25519' }, key, signature as BufferSource, data as BufferSource);
}

/**
 * Why one Ed25519Signature2020 proof of a proof set does not verify, or undefined when it does: the signed
 * bytes are SHA-256(canonical proof options under the document's context) || SHA-256(canonical document
 * without its proofs), as the W3C suite and the node's common kit compute them.
 */
export async function proofProblem(
  credential: Record<string, unknown>,
  proof: Proof,
  publicKey: Uint8Array,
  canonicalize: Canonicalize,
): Promise<string | undefined> {
  if (proof.type !== 'Ed25519Signature2020') return `a ${String(proof.type)} proof is not one this page verifies`;
  if (typeof proof.proofValue !== 'string' || !proof.proofValue.startsWith('z'))
    return 'the proofValue is not base58btc';
  let signature: Uint8Array;
  try {
    signature = base58btcDecode(proof.proofValue);
  } catch {
    return 'the proofValue is not base58btc';
  }
  if (signature.length !== 64) return `the signature has ${signature.length} bytes, not 64`;
  const { proofValue: _value, ...options } = proof;
  const { proof: _proofs, ...document } = credential;
  let hashData: Uint8Array;
  try {
    const [optionsForm, documentForm] = await Promise.all([
      canonicalize({ ...options, '@context': credential['@context'] }),
      canonicalize(document),
    ]);
    hashData = concat(await sha256(utf8(optionsForm)), await sha256(utf8(documentForm)));
  } catch (error) {
    return `the credential cannot be canonicalised: ${(error as Error).message}`;
  }
  return (await ed25519Verify(publicKey, signature, hashData)) ? undefined : 'the Ed25519 signature does not verify';
}

/** Check (b): every proof of the anchor credential verifies with its verification method's key. */
export async function checkProofs(
  credential: Record<string, unknown>,
  keyOf: KeyLookup,
  canonicalize: Canonicalize,
): Promise<Check> {
  const title = "Anchor credential's proofs";
  const proofs = proofsOf(credential);
  if (proofs.length === 0) return { id: 'proofs', title, ok: false, reason: 'the anchor credential has no proof' };
  const signers: string[] = [];
  for (const [index, proof] of proofs.entries()) {
    const method = typeof proof.verificationMethod === 'string' ? proof.verificationMethod : undefined;
    if (method === undefined)
      return { id: 'proofs', title, ok: false, reason: `proof ${index} names no verification method` };
    let key: Uint8Array;
    try {
      key = await keyOf(method);
    } catch (error) {
      return {
        id: 'proofs',
        title,
        ok: false,
        reason: `proof ${index}: no key for ${method}: ${(error as Error).message}`,
      };
    }
    const problem = await proofProblem(credential, proof, key, canonicalize);
    if (problem !== undefined)
      return { id: 'proofs', title, ok: false, reason: `proof ${index} by ${method}: ${problem}` };
    signers.push(method);
  }
  return {
    id: 'proofs',
    title,
    ok: true,
    reason: `${proofs.length} Ed25519Signature2020 proofs verify: ${signers.join(', ')}`,
  };
}
