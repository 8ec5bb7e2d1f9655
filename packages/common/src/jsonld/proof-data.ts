import { createHash } from 'node:crypto';
import { badRequest } from '../errors/index.js';
import { canonicalize, type CanonicalizeOptions } from './canonicalize.js';
import type { DocumentLoader } from './document-loader.js';
import type { DataIntegrityProof, SecuredDocument } from './proof-types.js';
import { proofOptionsOf } from './suites.js';

/**
 * The bytes a Linked Data proof signs, as the Digital Bazaar suites and the original compute them:
 * SHA-256(c14n(proof options)) || SHA-256(c14n(document without any proof)). The proof options are the
 * proof minus its signature, under the document's own `@context`. Proofs in a set are independent: each
 * covers the document with every proof removed, so witnesses can add proofs in any order.
 */
/**
 * Canonicalisation options a proof may use: named undefined terms at most, never the blanket `'any'`
 * (a signature must not silently skip whatever happens to be undefined).
 */
export interface ProofCanonicalizeOptions {
  documentLoader?: DocumentLoader;
  allowUndefinedTerms?: readonly string[];
}

function checked(options: ProofCanonicalizeOptions): CanonicalizeOptions {
  if (options.allowUndefinedTerms !== undefined && !Array.isArray(options.allowUndefinedTerms)) {
    throw badRequest('proofs take allowUndefinedTerms as a list of terms');
  }
  return options;
}

export function documentWithoutProofs(document: SecuredDocument): Record<string, unknown> {
  const { proof: _proof, ...rest } = document;
  return rest;
}

export async function documentDigest(document: SecuredDocument, options: ProofCanonicalizeOptions): Promise<Buffer> {
  return sha256(await canonicalize(documentWithoutProofs(document), checked(options)));
}

export async function proofOptionsDigest(
  proof: DataIntegrityProof,
  context: unknown,
  options: ProofCanonicalizeOptions,
): Promise<Buffer> {
  if (context === undefined) throw badRequest('a signed document needs an @context');
  return sha256(await canonicalize({ '@context': context, ...proofOptionsOf(proof) }, checked(options)));
}

export function verifyData(proofOptionsHash: Buffer, documentHash: Buffer): Buffer {
  return Buffer.concat([proofOptionsHash, documentHash]);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
