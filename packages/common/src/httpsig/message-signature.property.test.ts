import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { AppError } from '../errors/index.js';
import { servicePublicKeyDocument } from './key-document.js';
import { formatMessageSignature, parseMessageSignature, signatureInput } from './message-signature.js';
import { createRequestSigner } from './signer.js';
import { createSignatureAuthenticator } from './verifier.js';

/** Property tests of the RFC 9421 fields with a fixed seed (the same cases every run). */
const RUNS = { seed: 20261126, numRuns: 400 };

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** Field-like text: the dictionaries' own vocabulary shuffled, so cases get past the first checks. */
const fieldLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'sig1',
        '=',
        '(',
        ')',
        '"@method"',
        '"@target-uri"',
        '"content-digest"',
        ';created=',
        '123',
        ';keyid=',
        '"k"',
        ';alg=',
        '"ed25519"',
        ';expires=',
        '-1',
        '1.5',
        ':AAAA:',
        ':',
        ',',
        ' ',
        '?1',
        'sig2',
        ';req',
      ),
      fc.string({ unit: anyCodeUnit, maxLength: 4 }),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

/** What a structured-field string may hold: printable ASCII. */
const sfString = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 40,
});

function expectOnlyUnauthorized(input: string, signature: string): void {
  try {
    parseMessageSignature({ 'signature-input': input, signature });
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('unauthorized');
  }
}

describe('RFC 9421 fields (property, fixed seed)', () => {
  it('parseMessageSignature throws nothing but an AppError 401 on arbitrary fields', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: anyCodeUnit, maxLength: 200 }), fieldLike),
        fc.oneof(fc.constant('sig1=:AAAA:'), fieldLike),
        expectOnlyUnauthorized,
      ),
      RUNS,
    );
  });

  it('reads back what formatMessageSignature writes', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.constantFrom('@method', '@target-uri', '@path', '@query', '@authority', 'content-digest', 'date', 'x-a'),
          { maxLength: 6 },
        ),
        fc.record(
          { created: fc.nat(), keyid: sfString, alg: fc.constantFrom('ed25519', 'ecdsa-p256-sha256'), nonce: sfString },
          { requiredKeys: ['created', 'keyid'] },
        ),
        fc.uint8Array({ minLength: 1, maxLength: 132 }),
        (components, params, signature) => {
          const fields = formatMessageSignature('sig1', signatureInput(components, params), signature);
          const parsed = parseMessageSignature({
            'signature-input': fields['Signature-Input'],
            signature: fields.Signature,
          });
          expect(parsed.componentNames).toEqual(components);
          expect(parsed.params).toEqual(params);
          expect(parsed.signature).toEqual(Buffer.from(signature));
        },
      ),
      RUNS,
    );
  });

  it('the authenticator verifies what the RFC 9421 signer writes, for any URL and body', async () => {
    const key = KeyPair.generate('Ed25519');
    const serviceId = 'https://a.example/services/node';
    const keyId = `${serviceId}/keys/main-key`;
    const keyDocument = servicePublicKeyDocument({ serviceId, key });
    const documents = new Map<string, unknown>([
      [keyId, keyDocument],
      [serviceId, { id: serviceId, type: 'Service', publicKey: keyDocument }],
    ]);
    const authenticate = createSignatureAuthenticator({ fetchJson: async (url) => documents.get(url) });
    const signer = createRequestSigner({ keyId, key, scheme: 'rfc9421' });
    await fc.assert(
      fc.asyncProperty(
        fc.webUrl({ withQueryParameters: true, validSchemes: ['https'] }),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        fc.option(fc.uint8Array({ minLength: 1, maxLength: 256 }), { nil: undefined }),
        async (address, method, bytes) => {
          const url = new URL(address);
          const body = bytes ? Buffer.from(bytes) : undefined;
          const added = await signer({ method, url: url.href, headers: {}, ...(body ? { body } : {}) });
          // What arrives: the request line's target, the Host the client sent, the headers lower-cased.
          const headers = Object.fromEntries(Object.entries(added).map(([name, value]) => [name.toLowerCase(), value]));
          const signed = await authenticate({
            method,
            originalUrl: `${url.pathname}${url.search}`,
            headers: { host: url.host, ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
            ...(body ? { rawBody: body } : {}),
          });
          expect(signed).toEqual({ actor: serviceId, keyId });
        },
      ),
      { ...RUNS, numRuns: 100 },
    );
  });
});
