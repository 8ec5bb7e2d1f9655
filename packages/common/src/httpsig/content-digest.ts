import { createHash, timingSafeEqual } from 'node:crypto';
import { parseDictionary } from 'structured-headers';
import { unauthorized } from '../errors/index.js';

/**
 * RFC 9530 `Content-Digest`, the body digest RFC 9421 signatures cover: a structured dictionary of
 * `algorithm=:base64:` byte sequences, e.g. `sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`.
 * Only the two algorithms the RFC registers as "standard" are read; the insecure ones (md5, sha, ...) are not.
 */
export type ContentDigestAlgorithm = 'sha-256' | 'sha-512';

const HASHES: Record<ContentDigestAlgorithm, string> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

export function contentDigestHeader(body: Uint8Array, algorithm: ContentDigestAlgorithm = 'sha-256'): string {
  return `${algorithm}=:${createHash(HASHES[algorithm]).update(body).digest('base64')}:`;
}

/**
 * Checks a `Content-Digest` against the exact body bytes received: every entry of a supported algorithm must
 * match, and at least one must be present. Comparison is constant-time.
 */
export function verifyContentDigest(header: string, body: Uint8Array): void {
  let entries: ReturnType<typeof parseDictionary>;
  try {
    entries = parseDictionary(header);
  } catch (error) {
    throw unauthorized(`malformed Content-Digest header: ${(error as Error).message}`);
  }
  let checked = 0;
  for (const [name, member] of entries) {
    if (!(name in HASHES)) continue;
    const algorithm = name as ContentDigestAlgorithm;
    const claimed = member[0];
    if (!(claimed instanceof ArrayBuffer))
      throw unauthorized(`malformed Content-Digest header: the ${algorithm} value is not a byte sequence`);
    const actual = createHash(HASHES[algorithm]).update(body).digest();
    const claimedBytes = Buffer.from(claimed);
    if (claimedBytes.length !== actual.length || !timingSafeEqual(claimedBytes, actual))
      throw unauthorized(`Content-Digest mismatch: the ${algorithm} digest does not match the request body`);
    checked++;
  }
  if (checked === 0) {
    const names = [...entries.keys()].join(', ') || 'none';
    throw unauthorized(`unsupported Content-Digest algorithm ${names} (supported: sha-256, sha-512)`);
  }
}
