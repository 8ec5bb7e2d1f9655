import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { AppError } from '../errors/index.js';
import { createRequestSigner } from './signer.js';
import { formatSignatureHeader, parseSignatureHeader } from './signature-header.js';
import { buildSigningString } from './signing-string.js';

/** Property tests of the `Signature` header parser with a fixed seed (the same cases every run). */
const RUNS = { seed: 20261126, numRuns: 400 };

/** Any UTF-16 code unit, lone surrogates and controls included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** A quoted-string body formatSignatureHeader accepts: no quote, backslash or control character. */
const quotable = fc
  .string({
    unit: fc.oneof(fc.constantFrom('a', 'Z', '0', ':', '/', '#', '.', ',', '=', ' ', 'é', '\u{1F600}'), anyCodeUnit),
    minLength: 1,
    maxLength: 40,
  })
  .filter(
    (text) =>
      ![...text].some(
        (char) => char === '"' || char === '\\' || char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f,
      ),
  );

/** Header names as signers list them, in any casing; unique once lower-cased. */
const headerLists = fc.uniqueArray(
  fc.constantFrom(
    '(request-target)',
    '(created)',
    '(expires)',
    'Date',
    'date',
    'Digest',
    'Host',
    'content-type',
    'X-Custom',
  ),
  {
    minLength: 1,
    maxLength: 6,
    selector: (name) => name.toLowerCase(),
  },
);

/** Header-like text: the parser's own vocabulary shuffled, so cases get past its first checks. */
const headerLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'keyId',
        'algorithm',
        'headers',
        'signature',
        'created',
        'expires',
        'x',
        '=',
        '"',
        ',',
        ' ',
        '\t',
        'AAAA',
        '====',
        '123',
        '-1',
        '(request-target) date',
      ),
      fc.string({ unit: anyCodeUnit, maxLength: 4 }),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

function expectOnlyUnauthorized(value: string): void {
  try {
    parseSignatureHeader(value);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('unauthorized');
  }
}

describe('parseSignatureHeader (property, fixed seed)', () => {
  it('throws nothing but an AppError 401 on arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: anyCodeUnit, maxLength: 200 }), headerLike), expectOnlyUnauthorized),
      RUNS,
    );
  });

  it('throws nothing but an AppError 401 on a well-formed header with a part cut out or repeated', () => {
    fc.assert(
      fc.property(
        quotable,
        headerLists,
        fc.uint8Array({ minLength: 1, maxLength: 96 }),
        fc.nat(),
        fc.nat(),
        (keyId, headers, signature, from, length) => {
          const header = formatSignatureHeader({ keyId, algorithm: 'Sign', headers, signature });
          const start = from % header.length;
          const end = Math.min(header.length, start + (length % 16));
          expectOnlyUnauthorized(header.slice(0, start) + header.slice(end));
          expectOnlyUnauthorized(header.slice(0, end) + header.slice(start));
        },
      ),
      RUNS,
    );
  });

  it('reads back what formatSignatureHeader writes', () => {
    fc.assert(
      fc.property(
        quotable,
        quotable,
        headerLists,
        fc.uint8Array({ minLength: 1, maxLength: 132 }),
        (keyId, algorithm, headers, signature) => {
          const parsed = parseSignatureHeader(formatSignatureHeader({ keyId, algorithm, headers, signature }));
          expect(parsed).toEqual({
            keyId,
            algorithm,
            headers: headers.map((name) => name.toLowerCase()),
            signature: Buffer.from(signature),
          });
        },
      ),
      RUNS,
    );
  });

  it('reads back what the request signer writes: the signature it parses verifies over the listed headers', async () => {
    const key = KeyPair.generate('Ed25519');
    await fc.assert(
      fc.asyncProperty(
        fc.webUrl({ withQueryParameters: true }),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        fc.option(fc.uint8Array({ minLength: 1, maxLength: 256 }), { nil: undefined }),
        quotable,
        async (address, method, body, keyId) => {
          const url = new URL(address);
          const signer = createRequestSigner({ keyId, key });
          const added = await signer({
            method,
            url: url.href,
            headers: {},
            ...(body ? { body: Buffer.from(body) } : {}),
          });
          const parsed = parseSignatureHeader(added.Signature ?? '');
          expect(parsed.keyId).toBe(keyId);
          expect(parsed.headers).toEqual(body ? ['(request-target)', 'date', 'digest'] : ['(request-target)', 'date']);
          const signingString = buildSigningString(parsed.headers, {
            method,
            target: `${url.pathname}${url.search}`,
            header: (name) => (name === 'date' ? added.Date : name === 'digest' ? added.Digest : undefined),
          });
          expect(key.verify(Buffer.from(signingString, 'utf8'), parsed.signature)).toBe(true);
        },
      ),
      { ...RUNS, numRuns: 100 },
    );
  });
});
