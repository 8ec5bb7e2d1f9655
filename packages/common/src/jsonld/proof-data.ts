import { createHash } from 'node:crypto';
import { canonicalize as canonicalizeJson } from '../encoding/index.js';
import { badRequest } from '../errors/index.js';
import { canonicalize, type CanonicalizeOptions } from './canonicalize.js';
import type { DocumentLoader } from './document-loader.js';
import type { DataIntegrityProof, SecuredDocument } from './proof-types.js';
import { proofOptionsOf, type Canonicalization, type HashAlgorithm } from './suites.js';

/**
 * The bytes a proof signs, as the W3C Data Integrity specifications and the Digital Bazaar suites compute
 * them: hash(canonical proof options) || hash(canonical document). The proof options are the proof minus
 * its signature, under the document's `@context` (or the proof's own, when it carries one). Proofs in a set
 * are independent: each covers the document with every proof removed, so witnesses can add proofs in any
 * order; a proof of a chain (`previousProof`) covers the document with exactly the proofs it names.
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

/** What a proof covers besides the document: the earlier proofs of its chain, and the context it was made under. */
export interface ProofCoverage {
  /** The proofs named by `previousProof`, in the order the document carries them; empty for a proof in a set. */
  previousProofs: readonly DataIntegrityProof[];
  /** The `@context` the proof was made under (the document's unless the proof carries its own). */
  context: unknown;
}

/**
 * The canonical forms of one document, each computed once: every proof of a set shares the form without
 * proofs, and a verification of several proofs canonicalises the document once per distinct coverage.
 */
export class CanonicalDocument {
  readonly #forms = new Map<string, Promise<string>>();

  constructor(
    private readonly document: SecuredDocument,
    private readonly options: ProofCanonicalizeOptions,
  ) {}

  form(canonicalization: Canonicalization, hash: HashAlgorithm, coverage: ProofCoverage): Promise<string> {
    const key = JSON.stringify([canonicalization, hash, coverage.context, coverage.previousProofs]);
    let form = this.#forms.get(key);
    if (form === undefined) {
      const covered = documentWithoutProofs(this.document);
      if (coverage.context !== undefined) covered['@context'] = coverage.context;
      if (coverage.previousProofs.length > 0) covered.proof = [...coverage.previousProofs];
      form = canonicalForm(covered, canonicalization, hash, this.options);
      this.#forms.set(key, form);
    }
    return form;
  }
}

/** JCS, or RDFC-1.0 with the suite's hash (which orders and names blank nodes, so it changes the text). */
export async function canonicalForm(
  value: Record<string, unknown>,
  canonicalization: Canonicalization,
  hash: HashAlgorithm,
  options: ProofCanonicalizeOptions,
): Promise<string> {
  if (canonicalization === 'jcs') return canonicalizeJson(value);
  return canonicalize(value, hash === 'sha256' ? checked(options) : { ...checked(options), hashAlgorithm: hash });
}

/** The canonical proof options (the proof without its signature, under `context`). */
export function canonicalProofOptions(
  proof: DataIntegrityProof,
  context: unknown,
  canonicalization: Canonicalization,
  hash: HashAlgorithm,
  options: ProofCanonicalizeOptions,
): Promise<string> {
  if (context === undefined) throw badRequest('a signed document needs an @context');
  return canonicalForm({ ...proofOptionsOf(proof), '@context': context }, canonicalization, hash, options);
}

export function hashData(hash: HashAlgorithm, canonicalProofOptions: string, canonicalDocument: string): Buffer {
  return Buffer.concat([digest(hash, canonicalProofOptions), digest(hash, canonicalDocument)]);
}

function digest(hash: HashAlgorithm, text: string): Buffer {
  return createHash(hash).update(text, 'utf8').digest();
}

/**
 * The proofs of the document that `previousProof` names (all of them, in document order), or why not: every
 * id named must be the id of exactly one proof the document carries.
 */
export function proofsNamedBy(
  document: SecuredDocument,
  previousProof: unknown,
): DataIntegrityProof[] | { error: string } {
  if (previousProof === undefined) return [];
  const ids = Array.isArray(previousProof) ? previousProof : [previousProof];
  if (ids.length === 0 || !ids.every((id) => typeof id === 'string' && id.length > 0))
    return { error: 'previousProof must be a proof id or a non-empty list of proof ids' };
  const proofs = document.proof === undefined ? [] : Array.isArray(document.proof) ? document.proof : [document.proof];
  for (const id of ids) {
    const count = proofs.filter((proof) => isObject(proof) && proof.id === id).length;
    if (count !== 1)
      return {
        error: `previousProof ${JSON.stringify(id)} names ${count === 0 ? 'no' : 'more than one'} proof of the document`,
      };
  }
  return proofs.filter((proof) => isObject(proof) && ids.includes(proof.id));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
