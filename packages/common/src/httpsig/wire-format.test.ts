import { createHash, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { AppError } from '../errors/index.js';
import { checkDateFreshness, httpDate } from './date.js';
import { digestHeader, verifyDigestHeader } from './digest.js';
import { formatSignatureHeader, parseSignatureHeader } from './signature-header.js';
import { createRequestSigner } from './signer.js';
import { buildSigningString, MissingSignedHeaderError } from './signing-string.js';

/** RFC 8032 test vector 1: a fixed Ed25519 key, so signatures are reproducible. */
const RFC8032_SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const FIXED_DATE = new Date('2022-06-07T20:51:35Z');

function unauthorizedMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(401);
    return (error as AppError).message;
  }
  throw new Error('expected a 401');
}

describe("signing requests in Orb's wire format", () => {
  const key = KeyPair.fromSeed('Ed25519', RFC8032_SEED);
  const keyId = 'https://orb.example.com/services/orb/keys/main-key';
  const signer = createRequestSigner({ keyId, key, now: () => FIXED_DATE });

  it('signs a GET over `(request-target) Date` with algorithm "Sign"', async () => {
    const headers = await signer({
      method: 'GET',
      url: 'https://peer.example.com/services/orb/outbox?page=true&page-num=2',
      headers: {},
    });
    expect(Object.keys(headers).sort()).toEqual(['Date', 'Signature']);
    expect(headers.Date).toBe('Tue, 07 Jun 2022 20:51:35 GMT');
    const match =
      /^keyId="([^"]+)",algorithm="Sign",headers="\(request-target\) Date",signature="([A-Za-z0-9+/]+={0,2})"$/.exec(
        headers.Signature ?? '',
      );
    expect(match?.[1]).toBe(keyId);
    const signingString =
      '(request-target): get /services/orb/outbox?page=true&page-num=2\ndate: Tue, 07 Jun 2022 20:51:35 GMT';
    // Checked with node:crypto directly, independently of this module's verifier.
    expect(verify(null, Buffer.from(signingString), key.publicKey, Buffer.from(match?.[2] ?? '', 'base64'))).toBe(true);
  });

  it('signs a body over `(request-target) Date Digest` with a SHA-256 Digest of the exact bytes', async () => {
    const body = Buffer.from('{"type":"Follow"}');
    const headers = await signer({
      method: 'POST',
      url: 'https://peer.example.com/services/orb/inbox',
      headers: {},
      body,
    });
    const expectedDigest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
    expect(headers.Digest).toBe(expectedDigest);
    expect(headers.Signature).toContain('headers="(request-target) Date Digest"');
    const signature = Buffer.from(parseSignatureHeader(headers.Signature ?? '').signature);
    const signingString = `(request-target): post /services/orb/inbox\ndate: Tue, 07 Jun 2022 20:51:35 GMT\ndigest: ${expectedDigest}`;
    expect(verify(null, Buffer.from(signingString), key.publicKey, signature)).toBe(true);
  });

  it('writes SHA-512 digests when configured', async () => {
    const sha512Signer = createRequestSigner({ keyId, key, digestAlgorithm: 'SHA-512' });
    const headers = await sha512Signer({
      method: 'POST',
      url: 'https://peer.example.com/inbox',
      headers: {},
      body: Buffer.from('x'),
    });
    expect(headers.Digest).toBe(`SHA-512=${createHash('sha512').update('x').digest('base64')}`);
  });

  it('treats an empty body as no body (Orb cannot digest an empty body)', async () => {
    const headers = await signer({
      method: 'POST',
      url: 'https://peer.example.com/inbox',
      headers: {},
      body: Buffer.alloc(0),
    });
    expect(headers.Digest).toBeUndefined();
    expect(headers.Signature).toContain('headers="(request-target) Date"');
  });

  it('sends ECDSA signatures as IEEE P1363 r||s', async () => {
    for (const [type, size] of [
      ['P-256', 64],
      ['P-384', 96],
    ] as const) {
      const ecKey = KeyPair.generate(type);
      const headers = await createRequestSigner({ keyId, key: ecKey })({
        method: 'GET',
        url: 'https://peer.example.com/x',
        headers: {},
      });
      expect(parseSignatureHeader(headers.Signature ?? '').signature.length).toBe(size);
    }
  });

  it('refuses keys that cannot sign HTTP requests and keyIds that would break the header', () => {
    expect(() => createRequestSigner({ keyId, key: KeyPair.generate('X25519') })).toThrow(/X25519/);
    expect(() => createRequestSigner({ keyId: 'https://x/"evil', key })).toThrow(/invalid keyId/);
  });
});

describe('parseSignatureHeader', () => {
  const signature = Buffer.from('sig-bytes').toString('base64');

  it("reads Orb's header and lower-cases the signed header names", () => {
    const parsed = parseSignatureHeader(
      `keyId="https://a/keys/main-key",algorithm="Sign",headers="(request-target) Date Digest",signature="${signature}"`,
    );
    expect(parsed).toEqual({
      keyId: 'https://a/keys/main-key',
      algorithm: 'Sign',
      headers: ['(request-target)', 'date', 'digest'],
      signature: Buffer.from('sig-bytes'),
    });
  });

  it('accepts spaces after commas, bare created/expires, and ignores unknown parameters', () => {
    const parsed = parseSignatureHeader(
      `keyId="k", created=1654635095 ,foo="a,b=c", headers="(request-target) date", signature="${signature}"`,
    );
    expect(parsed.created).toBe(1654635095);
    expect(parsed.keyId).toBe('k');
    expect(parsed.algorithm).toBeUndefined();
  });

  it('defaults the header list to (created), as the draft says', () => {
    expect(parseSignatureHeader(`keyId="k",signature="${signature}"`).headers).toEqual(['(created)']);
  });

  it.each([
    ['', 'empty'],
    ['garbage', 'expected name=value'],
    [`keyId="a",keyId="b",signature="${signature}"`, 'duplicate parameter keyId'],
    [`keyId=abc,signature="${signature}"`, 'must be a quoted string'],
    [`keyId=123,signature="${signature}"`, 'value of keyId must be a quoted string'],
    [`keyId="a",signature="${signature}`, 'unterminated quoted value'],
    [`keyId="a" signature="${signature}"`, "expected ','"],
    [`keyId="a",signature="${signature}",`, 'trailing comma'],
    [`signature="${signature}"`, 'missing keyId'],
    ['keyId="a",headers="date"', 'missing signature'],
    ['keyId="a",signature="not base64!"', 'signature is not base64'],
    [`keyId="a",headers="",signature="${signature}"`, 'empty headers list'],
    [`keyId="a",headers="date Date",signature="${signature}"`, 'listed twice'],
    [`keyId="a",created=99999999999999,signature="${signature}"`, 'created must be an integer'],
    [`key id="a",signature="${signature}"`, 'invalid parameter name'],
    [`keyId="${'a'.repeat(9000)}",signature="${signature}"`, 'longer than'],
  ])('rejects %j with a 401 naming the problem', (header, reason) => {
    const message = unauthorizedMessage(() => parseSignatureHeader(header));
    expect(message).toMatch(/^malformed Signature header: /);
    expect(message).toContain(reason);
  });

  it('round-trips what formatSignatureHeader writes', () => {
    const header = formatSignatureHeader({
      keyId: 'did:web:a.example:services:node#main-key',
      algorithm: 'Sign',
      headers: ['(request-target)', 'Date'],
      signature: Buffer.from([1, 2, 3]),
    });
    expect(header).toBe(
      'keyId="did:web:a.example:services:node#main-key",algorithm="Sign",headers="(request-target) Date",signature="AQID"',
    );
    expect(parseSignatureHeader(header).signature).toEqual(Buffer.from([1, 2, 3]));
  });
});

describe('buildSigningString', () => {
  it('joins lower-cased lines in the listed order, trimming values', () => {
    const text = buildSigningString(['(request-target)', 'Host', 'Date'], {
      method: 'POST',
      target: '/inbox?x=1',
      header: (name) => ({ host: 'a.example', date: '  Tue, 07 Jun 2022 20:51:35 GMT ' })[name],
    });
    expect(text).toBe('(request-target): post /inbox?x=1\nhost: a.example\ndate: Tue, 07 Jun 2022 20:51:35 GMT');
  });

  it('fails on a listed header the request lacks', () => {
    expect(() => buildSigningString(['digest'], { method: 'GET', target: '/', header: () => undefined })).toThrow(
      MissingSignedHeaderError,
    );
  });
});

describe('Digest', () => {
  const body = Buffer.from('{"hello":"world"}');

  it('accepts SHA-256 and SHA-512 (any casing) over the exact bytes', () => {
    expect(() => verifyDigestHeader(digestHeader(body), body)).not.toThrow();
    expect(() => verifyDigestHeader(digestHeader(body, 'SHA-512'), body)).not.toThrow();
    expect(() => verifyDigestHeader(digestHeader(body).replace('SHA-256', 'sha-256'), body)).not.toThrow();
  });

  it('accepts a list, ignoring unsupported entries, but every supported entry must match', () => {
    expect(() => verifyDigestHeader(`MD5=abc=, ${digestHeader(body)}`, body)).not.toThrow();
    const message = unauthorizedMessage(() =>
      verifyDigestHeader(`${digestHeader(body)}, ${digestHeader(Buffer.from('x'), 'SHA-512')}`, body),
    );
    expect(message).toContain('SHA-512 digest does not match');
  });

  it('rejects a digest of other bytes, unsupported algorithms and malformed values', () => {
    expect(unauthorizedMessage(() => verifyDigestHeader(digestHeader(Buffer.from('other')), body))).toContain(
      'Digest mismatch',
    );
    expect(
      unauthorizedMessage(() => verifyDigestHeader(`MD5=${createHash('md5').update(body).digest('base64')}`, body)),
    ).toContain('unsupported Digest algorithm MD5');
    expect(unauthorizedMessage(() => verifyDigestHeader('SHA-256=***', body))).toContain('not base64');
    expect(unauthorizedMessage(() => verifyDigestHeader('sha256', body))).toContain('malformed Digest header');
    expect(unauthorizedMessage(() => verifyDigestHeader('SHA-256=AAAA', body))).toContain('Digest mismatch');
  });
});

describe('Date freshness', () => {
  const now = FIXED_DATE.getTime();
  const window = 5 * 60_000;

  it('accepts IMF-fixdate within the window both ways', () => {
    expect(httpDate(FIXED_DATE)).toBe('Tue, 07 Jun 2022 20:51:35 GMT');
    expect(() => checkDateFreshness(httpDate(new Date(now - window + 1000)), now, window)).not.toThrow();
    expect(() => checkDateFreshness(httpDate(new Date(now + window - 1000)), now, window)).not.toThrow();
  });

  it('rejects stale, future, missing and non-HTTP dates', () => {
    expect(
      unauthorizedMessage(() => checkDateFreshness(httpDate(new Date(now - window - 1000)), now, window)),
    ).toContain('stale Date header: 301s old');
    expect(unauthorizedMessage(() => checkDateFreshness(httpDate(new Date(now + 3_600_000)), now, window))).toContain(
      '3600s in the future',
    );
    expect(unauthorizedMessage(() => checkDateFreshness(undefined, now, window))).toContain('missing');
    expect(unauthorizedMessage(() => checkDateFreshness('2022-06-07T20:51:35Z', now, window))).toContain(
      'not an HTTP date',
    );
    expect(unauthorizedMessage(() => checkDateFreshness('Tue, 99 Jun 2022 20:51:35 GMT', now, window))).toContain(
      'not an HTTP date',
    );
  });
});
