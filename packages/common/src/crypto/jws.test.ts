import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { base64UrlEncode } from '../encoding/index.js';
import { AppError } from '../errors/index.js';
import { KeyPair, type Jwk, parseJws, publicKeyFromJwk, signJws, verifyJws } from './index.js';

const VECTORS = '/work/shared/vectors/sidetree-dif';
const readJson = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(`${VECTORS}/${path}`, 'utf8')) as Record<string, unknown>;

// RFC 8037 Appendix A.1 and A.4.
const RFC8037_JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
};
const RFC8037_JWS =
  'eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg';
// RFC 7515 Appendix A.3.
const RFC7515_P256 = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};
const RFC7515_A3 =
  'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q';
// The recovery key revealed by the DIF deactivate vector (sidetree.md §5.2).
const JMNP_KEY = {
  kty: 'EC',
  crv: 'secp256k1',
  x: 'JMnp_J9nAHadLjI6b_5U73UpHFjHFSTwmsVTPoEM5l0',
  y: 'wsT1-stQboJWOxBrRuH4t0U_s_YRC-xYt2FADUCGGc8',
};

function badRequestMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
    return (error as AppError).message;
  }
  throw new Error('expected a bad_request AppError');
}

/** The same bytes written with a spare bit of the last character set: decodable, but not canonical. */
function spareBitTwin(segment: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return segment.slice(0, -1) + alphabet[alphabet.indexOf(segment.at(-1)!) ^ 0x01]!;
}

function replaceSegment(jws: string, index: number, segment: string): string {
  const parts = jws.split('.');
  parts[index] = segment;
  return parts.join('.');
}

describe('JWS against published vectors', () => {
  it('reproduces RFC 8037 A.4 byte for byte and verifies it', () => {
    const key = KeyPair.fromJwk(RFC8037_JWK);
    expect(signJws('Example of Ed25519 signing', key)).toBe(RFC8037_JWS);
    const parsed = verifyJws(RFC8037_JWS, { kty: 'OKP', crv: 'Ed25519', x: RFC8037_JWK.x });
    expect(parsed.payload.toString('utf8')).toBe('Example of Ed25519 signing');
    expect(parsed.header).toEqual({ alg: 'EdDSA' });
  });

  it('verifies RFC 7515 A.3 (ES256, raw r||s)', () => {
    const parsed = verifyJws(RFC7515_A3, RFC7515_P256);
    expect(JSON.parse(parsed.payload.toString('utf8'))).toEqual({
      iss: 'joe',
      exp: 1300819380,
      'http://example.com/is_root': true,
    });
    expect(parsed.signature).toHaveLength(64);
  });

  it('verifies the ES256K signatures of the DIF Sidetree update, recover and deactivate operations', () => {
    const update = readJson('operations/updateOperation.json');
    const recover = readJson('operations/recoverOperation.json');
    const deactivate = readJson('operations/deactivateOperation.json');
    const updateKey = readJson('inputs/jwkEs256k2Public.json') as Jwk;
    const recoveryKey = readJson('inputs/jwkEs256k1Public.json') as Jwk;

    const parsedUpdate = verifyJws(update.signedData as string, updateKey, { algorithms: ['ES256K'] });
    expect(JSON.parse(parsedUpdate.payload.toString('utf8')).updateKey).toEqual(updateKey);
    expect(verifyJws(recover.signedData as string, recoveryKey).header).toEqual({ alg: 'ES256K' });
    expect(verifyJws(deactivate.signedData as string, JMNP_KEY).payload.toString('utf8')).toContain('"didSuffix"');

    // Each signature belongs to its own key only.
    expect(badRequestMessage(() => verifyJws(update.signedData as string, recoveryKey))).toBe(
      'signature verification failed',
    );
    expect(badRequestMessage(() => verifyJws(deactivate.signedData as string, recoveryKey))).toBe(
      'signature verification failed',
    );
  });

  it('imports the DIF private keys (d matches x/y) and signs what their public keys verify', () => {
    for (const name of ['jwkEs256k1Private', 'jwkEs256k2Private', 'publicKeyModel1Private']) {
      const jwk = readJson(`inputs/${name}.json`) as Jwk;
      const key = KeyPair.fromJwk(jwk);
      expect(key.isPrivate).toBe(true);
      const jws = signJws('{"deltaHash":"x"}', key);
      expect(verifyJws(jws, { kty: 'EC', crv: 'secp256k1', x: jwk.x, y: jwk.y }).payload.toString()).toBe(
        '{"deltaHash":"x"}',
      );
    }
  });
});

describe('signJws', () => {
  it.each(['Ed25519', 'P-256', 'P-384', 'secp256k1'] as const)('%s round-trips and carries the payload', (type) => {
    const key = KeyPair.generate(type);
    const payload = JSON.stringify({ hello: 'world', n: [1, 2, 3] });
    const jws = signJws(payload, key, { kid: 'did:example:123#key-1' });
    const parsed = verifyJws(jws, key.publicJwk());
    expect(parsed.payload.toString('utf8')).toBe(payload);
    expect(parsed.header).toEqual({ alg: key.jwsAlgorithm, kid: 'did:example:123#key-1' });
    expect(verifyJws(jws, key.toPublic()).signingInput).toBe(jws.split('.').slice(0, 2).join('.'));
  });

  it('writes the protected header as sorted compact JSON, as the Go verifier rebuilds it', () => {
    const key = KeyPair.generate('P-256');
    const jws = signJws(Buffer.from([1, 2, 3]), key, { kid: 'k1', zeta: 1, beta: { b: true, a: null } });
    expect(Buffer.from(jws.split('.')[0]!, 'base64url').toString('utf8')).toBe(
      '{"alg":"ES256","beta":{"a":null,"b":true},"kid":"k1","zeta":1}',
    );
    expect(Buffer.from(signJws('x', key, { kid: 'a&b<c>' }).split('.')[0]!, 'base64url').toString('utf8')).toBe(
      '{"alg":"ES256","kid":"a\\u0026b\\u003cc\\u003e"}',
    );
  });

  it('refuses an alg the key cannot produce and b64/crit members', () => {
    const key = KeyPair.generate('secp256k1');
    expect(badRequestMessage(() => signJws('x', key, { alg: 'ES256' }))).toBe(
      'alg ES256 does not match key type secp256k1 (ES256K)',
    );
    expect(badRequestMessage(() => signJws('x', key, { b64: false, crit: ['b64'] }))).toMatch(/use signDetachedJws/);
    expect(badRequestMessage(() => signJws('x', KeyPair.generate('X25519')))).toMatch(/X25519 keys cannot sign/);
    expect(badRequestMessage(() => signJws('x', key.toPublic()))).toMatch(/has no private key/);
  });
});

describe('parseJws rejects malformed input with a specific message', () => {
  const key = KeyPair.generate('Ed25519');
  const good = signJws('payload', key);
  const [header, payload, signature] = good.split('.') as [string, string, string];
  const encodeHeader = (json: string): string => base64UrlEncode(json);

  it.each([
    ['two parts', `${header}.${payload}`, 'JWS must have exactly 3 parts, got 2'],
    ['four parts', `${good}.x`, 'JWS must have exactly 3 parts, got 4'],
    ['an empty header', `.${payload}.${signature}`, 'JWS protected header is empty'],
    [
      'a padded header',
      `${header}=.${payload}.${signature}`,
      'JWS protected header is not canonical unpadded base64url',
    ],
    [
      'standard base64 characters',
      `${header}.${payload}+.${signature}`,
      'JWS payload is not canonical unpadded base64url',
    ],
    ['an empty signature', `${header}.${payload}.`, 'JWS signature is empty'],
    [
      'a non-canonical signature',
      `${header}.${payload}.${spareBitTwin(signature)}`,
      'JWS signature is not canonical unpadded base64url',
    ],
    [
      'a header that is not JSON',
      `${encodeHeader('{alg:EdDSA}')}.${payload}.${signature}`,
      'JWS protected header is not valid UTF-8 JSON',
    ],
    [
      'a header that is not UTF-8',
      `${base64UrlEncode(Buffer.from([0x7b, 0xff, 0x7d]))}.${payload}.${signature}`,
      'JWS protected header is not valid UTF-8 JSON',
    ],
    [
      'a header that is an array',
      `${encodeHeader('["EdDSA"]')}.${payload}.${signature}`,
      'JWS protected header must be a JSON object',
    ],
    [
      'a header that is null',
      `${encodeHeader('null')}.${payload}.${signature}`,
      'JWS protected header must be a JSON object',
    ],
    [
      'a header without alg',
      `${encodeHeader('{"kid":"k"}')}.${payload}.${signature}`,
      'JWS protected header alg must be a string',
    ],
    [
      'a numeric alg',
      `${encodeHeader('{"alg":1}')}.${payload}.${signature}`,
      'JWS protected header alg must be a string',
    ],
  ])('%s', (_name, jws, message) => {
    expect(badRequestMessage(() => parseJws(jws))).toBe(message);
  });

  it('rejects a value that is not a string', () => {
    expect(badRequestMessage(() => parseJws(42 as unknown as string))).toBe('JWS must be a string');
  });

  it('accepts an empty payload (a valid JWS) and exposes every segment', () => {
    const jws = signJws('', key);
    const parsed = parseJws(jws);
    expect(parsed.payload).toHaveLength(0);
    expect(parsed.payloadSegment).toBe('');
    expect(parsed.signature).toHaveLength(64);
    expect(parsed.headerSegment).toBe(jws.split('.')[0]);
    expect(verifyJws(parsed, key).payload).toHaveLength(0);
  });
});

describe('verifyJws rejects tampering and algorithm confusion', () => {
  const key = KeyPair.generate('secp256k1');
  const jws = signJws('{"deltaHash":"EiCpjN47f0Mq6xDNUKn4hSegMEqoDS_rpQ29Wy1V73VDbw"}', key, { kid: 'update' });
  const [header, payload, signature] = jws.split('.') as [string, string, string];

  it('fails on a changed payload, header or signature', () => {
    expect(
      badRequestMessage(() => verifyJws(replaceSegment(jws, 1, base64UrlEncode('{"deltaHash":"other"}')), key)),
    ).toBe('signature verification failed');
    expect(
      badRequestMessage(() =>
        verifyJws(replaceSegment(jws, 0, base64UrlEncode('{"alg":"ES256K","kid":"other"}')), key),
      ),
    ).toBe('signature verification failed');
    // The same header with keys in another order is a different signing input.
    expect(
      badRequestMessage(() =>
        verifyJws(replaceSegment(jws, 0, base64UrlEncode('{"kid":"update","alg":"ES256K"}')), key),
      ),
    ).toBe('signature verification failed');
    const flipped = Buffer.from(signature, 'base64url');
    flipped[10]! ^= 0x80;
    expect(badRequestMessage(() => verifyJws(replaceSegment(jws, 2, base64UrlEncode(flipped)), key))).toBe(
      'signature verification failed',
    );
    expect(badRequestMessage(() => verifyJws(replaceSegment(jws, 2, base64UrlEncode(flipped.subarray(1))), key))).toBe(
      'signature verification failed',
    );
    expect(badRequestMessage(() => verifyJws(jws, KeyPair.generate('secp256k1').publicJwk()))).toBe(
      'signature verification failed',
    );
    expect(payload.length).toBeGreaterThan(0);
  });

  it('enforces the allow-list and the key type', () => {
    expect(badRequestMessage(() => verifyJws(jws, key, { algorithms: ['EdDSA', 'ES256'] }))).toBe(
      'algorithm ES256K not allowed',
    );
    expect(verifyJws(jws, key, { algorithms: ['ES256K'] }).header.kid).toBe('update');
    const relabelled = replaceSegment(jws, 0, base64UrlEncode('{"alg":"ES256","kid":"update"}'));
    expect(badRequestMessage(() => verifyJws(relabelled, key))).toBe('alg ES256 does not match key type secp256k1');
    expect(badRequestMessage(() => verifyJws(replaceSegment(jws, 0, base64UrlEncode('{"alg":"none"}')), key))).toBe(
      'algorithm none not allowed',
    );
    expect(badRequestMessage(() => verifyJws(replaceSegment(jws, 0, base64UrlEncode('{"alg":"HS256"}')), key))).toBe(
      'unsupported algorithm HS256',
    );
    expect(badRequestMessage(() => verifyJws(jws, KeyPair.generate('X25519')))).toBe(
      'alg ES256K does not match key type X25519',
    );
    expect(header.length).toBeGreaterThan(0);
  });

  it('refuses critical parameters it does not understand and unencoded payloads', () => {
    const signed = (extra: Record<string, unknown>): string => {
      const headerSegment = base64UrlEncode(JSON.stringify({ alg: 'ES256K', ...extra }));
      const input = `${headerSegment}.${payload}`;
      return `${input}.${base64UrlEncode(key.sign(Buffer.from(input)))}`;
    };
    expect(verifyJws(signed({ kid: 'x' }), key).header.kid).toBe('x');
    expect(badRequestMessage(() => verifyJws(signed({ crit: ['exp'], exp: 1 }), key))).toBe(
      'unsupported critical header parameter exp',
    );
    expect(badRequestMessage(() => verifyJws(signed({ crit: [] }), key))).toBe(
      'JWS crit must be a non-empty array of strings',
    );
    expect(badRequestMessage(() => verifyJws(signed({ b64: false, crit: ['b64'] }), key))).toBe(
      'unsupported critical header parameter b64',
    );
    expect(badRequestMessage(() => verifyJws(signed({ b64: false }), key))).toBe(
      'JWS with an unencoded payload (b64 false) must be verified detached',
    );
  });

  it('rejects a malformed verification JWK before looking at the signature', () => {
    expect(badRequestMessage(() => verifyJws(jws, { kty: 'EC', crv: 'secp256k1', x: 'short', y: 'short' }))).toBe(
      'JWK x must be 43 base64url characters (32 bytes)',
    );
  });
});

describe('publicKeyFromJwk cache', () => {
  it('serves repeated keys from the cache and ignores private members', () => {
    const key = KeyPair.generate('P-256');
    const first = publicKeyFromJwk(key.publicJwk());
    expect(publicKeyFromJwk({ ...key.publicJwk(), kid: 'other' })).toBe(first);
    const fromPrivate = publicKeyFromJwk(key.privateJwk());
    expect(fromPrivate).toBe(first);
    expect(fromPrivate.isPrivate).toBe(false);
  });

  it('never answers a malformed JWK from the cache', () => {
    const key = KeyPair.generate('Ed25519');
    publicKeyFromJwk(key.publicJwk());
    expect(
      badRequestMessage(() =>
        publicKeyFromJwk({ kty: 'OKP', crv: 'Ed25519', x: [key.publicJwk().x] as unknown as string }),
      ),
    ).toBe('JWK x must be a string');
    expect(
      badRequestMessage(() => publicKeyFromJwk({ kty: 'OKP', crv: 'X25519', x: key.publicJwk().x, y: 'abc' })),
    ).toBe('X25519 JWK must not carry a y coordinate');
  });

  it('stays bounded and still answers correctly after evicting', () => {
    const keys = Array.from({ length: 1100 }, () => KeyPair.generate('Ed25519'));
    const imported = keys.map((key) => publicKeyFromJwk(key.publicJwk()));
    expect(publicKeyFromJwk(keys[0]!.publicJwk())).not.toBe(imported[0]);
    expect(publicKeyFromJwk(keys[0]!.publicJwk()).publicKey.equals(keys[0]!.publicKey)).toBe(true);
    expect(publicKeyFromJwk(keys[1099]!.publicJwk())).toBe(imported[1099]);
  });
});
