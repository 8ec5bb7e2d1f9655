import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { digestHeader, verifyDigestHeader } from './digest.js';
import { parseSignatureHeader } from './signature-header.js';
import { buildSigningString, recordHeaderLookup } from './signing-string.js';

/**
 * draft-cavage-http-signatures-12 Appendix C (vectors/draft-cavage/README.md): the signing string of each case
 * built from the test request, the published `Signature` header parsed, the signature checked over our signing
 * string with the appendix's RSA key (node:crypto: the module takes Orb's key types, Ed25519 and
 * ECDSA, so the RSA key itself is not applicable), and the request's `Digest`.
 */
interface Vectors {
  key: { publicKeyPem: string };
  request: { method: string; target: string; headers: [string, string][]; body: string };
  cases: { section: string; headers: string[]; signingString: string; signatureHeader: string }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('./vectors/draft-cavage/appendix-c.json', import.meta.url), 'utf8'),
) as Vectors;
const rsaKey = createPublicKey(vectors.key.publicKeyPem);
let ran = 0;

describe('draft-cavage-http-signatures-12 Appendix C test vectors', () => {
  afterAll(() => {
    console.log(
      `draft-cavage: ${ran} vectors ran (${vectors.cases.length} signing strings with their rsa-sha256 signatures and ` +
        `Signature headers, the Digest); the RSA key is checked with node:crypto only: the module takes Ed25519 and ECDSA keys`,
    );
  });

  it.each(vectors.cases.map((vector) => [vector.section, vector] as const))('%s', (_section, vector) => {
    const { method, target, headers } = vectors.request;
    const signingString = buildSigningString(vector.headers, {
      method,
      target,
      header: recordHeaderLookup(Object.fromEntries(headers)),
    });
    expect(signingString).toBe(vector.signingString);

    const params = parseSignatureHeader(vector.signatureHeader);
    expect(params.keyId).toBe('Test');
    expect(params.algorithm).toBe('rsa-sha256');
    expect(verify('sha256', Buffer.from(signingString, 'utf8'), rsaKey, params.signature)).toBe(true);
    expect(verify('sha256', Buffer.from(`${signingString}\n`, 'utf8'), rsaKey, params.signature)).toBe(false);
    ran++;
  });

  it('C.3 lists (created) (expires) but its signature covers the string without them', () => {
    // The appendix warns its vectors are old; C.3's header names two pseudo-headers its signing string lacks.
    const vector = vectors.cases.find((c) => c.section === 'C.3');
    const params = parseSignatureHeader(vector?.signatureHeader ?? '');
    expect(params.headers).toEqual(['(request-target)', '(created)', '(expires)', ...(vector?.headers.slice(1) ?? [])]);
    expect({ created: params.created, expires: params.expires }).toEqual({ created: 1402170695, expires: 1402170699 });
  });

  it('the Digest of the test request', () => {
    const published = vectors.request.headers.find(([name]) => name === 'Digest')?.[1] ?? '';
    const body = Buffer.from(vectors.request.body, 'utf8');
    expect(digestHeader(body)).toBe(published);
    verifyDigestHeader(published, body);
    ran++;
  });
});
