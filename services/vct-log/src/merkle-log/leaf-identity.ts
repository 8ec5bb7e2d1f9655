import { createHash } from 'node:crypto';

/**
 * The dedupe identity of a credential: SHA-256 of its N-Quads, as trustbloc/vct's `LeafIdentityHash`.
 * Proofs, JSON formatting and equivalent contexts do not change it; the timestamp is not part of it.
 * Returned as base64url, which is what the leaves store is keyed by. (The leaf itself, its hash and the
 * signed payloads are the VCT wire format: `@anchor/common/vct`.)
 */
export function identityHashOf(nquads: string): string {
  return createHash('sha256').update(nquads, 'utf8').digest('base64url');
}
