import { createHash, timingSafeEqual } from 'node:crypto';
import { base64Decode } from '../encoding/index.js';
import { unauthorized } from '../errors/index.js';

/**
 * RFC 3230 `Digest` header: `SHA-256=<base64>` (what Orb's library writes) or `SHA-512=<base64>`; not MD5,
 * which no longer protects anything.
 */
export type DigestAlgorithm = 'SHA-256' | 'SHA-512';

const HASHES: Record<DigestAlgorithm, string> = { 'SHA-256': 'sha256', 'SHA-512': 'sha512' };

export function digestHeader(body: Uint8Array, algorithm: DigestAlgorithm = 'SHA-256'): string {
  return `${algorithm}=${createHash(HASHES[algorithm]).update(body).digest('base64')}`;
}

/**
 * Checks a `Digest` header against the exact body bytes received. The header may list several
 * `algorithm=value` entries; every entry with a supported algorithm must match and at least one must be
 * present. Algorithm names are case-insensitive. Comparison is constant-time.
 */
export function verifyDigestHeader(header: string, body: Uint8Array): void {
  let checked = 0;
  const unsupported: string[] = [];
  for (const entry of header.split(',')) {
    const trimmed = entry.trim();
    const eq = trimmed.indexOf('=');
    if (eq <= 0)
      throw unauthorized(
        `malformed Digest header: expected algorithm=base64, got ${JSON.stringify(trimmed.slice(0, 40))}`,
      );
    const name = trimmed.slice(0, eq).toUpperCase();
    const algorithm = name in HASHES ? (name as DigestAlgorithm) : undefined;
    if (!algorithm) {
      unsupported.push(trimmed.slice(0, eq));
      continue;
    }
    let claimed: Buffer;
    try {
      claimed = base64Decode(trimmed.slice(eq + 1));
    } catch {
      throw unauthorized(`malformed Digest header: ${algorithm} value is not base64`);
    }
    const actual = createHash(HASHES[algorithm]).update(body).digest();
    if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) {
      throw unauthorized(`Digest mismatch: the ${algorithm} digest does not match the request body`);
    }
    checked++;
  }
  if (checked === 0) {
    throw unauthorized(`unsupported Digest algorithm ${unsupported.join(', ')} (supported: SHA-256, SHA-512)`);
  }
}
