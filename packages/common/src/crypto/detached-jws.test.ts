import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { base64UrlEncode } from '../encoding/index.js';
import { AppError } from '../errors/index.js';
import { KeyPair, signDetachedJws, verifyDetachedJws } from './index.js';

// The header every Ed25519Signature2018 proof carries: base64url('{"alg":"EdDSA","b64":false,"crit":["b64"]}').
const ED25519_2018_HEADER = 'eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19';
const RFC8037_SEED = Buffer.from('nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', 'base64url');

describe('detached JWS with an unencoded payload (RFC 7797)', () => {
  const payload = Buffer.concat([Buffer.from('canonical proof options hash'), Buffer.from([0x00, 0xff, 0x2e])]);

  it('writes the Ed25519Signature2018 header and signs header-segment "." raw payload', () => {
    const key = KeyPair.fromSeed('Ed25519', RFC8037_SEED);
    const jws = signDetachedJws(payload, key);
    const [header, middle, signature] = jws.split('.') as [string, string, string];
    expect(header).toBe(ED25519_2018_HEADER);
    expect(middle).toBe('');
    // Independent check: noble verifies the signature over exactly the RFC 7797 signing input.
    const signingInput = Buffer.concat([Buffer.from(`${header}.`), payload]);
    expect(ed25519.verify(Buffer.from(signature, 'base64url'), signingInput, key.publicKeyBytes())).toBe(true);
    expect(verifyDetachedJws(jws, payload, key.publicJwk())).toBe(true);
  });

  it.each(['Ed25519', 'P-256', 'P-384', 'secp256k1'] as const)(
    '%s round-trips; a changed payload or key fails',
    (type) => {
      const key = KeyPair.generate(type);
      const jws = signDetachedJws(payload, key, { kid: 'did:example:1#k' });
      expect(JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString())).toEqual({
        alg: key.jwsAlgorithm,
        b64: false,
        crit: ['b64'],
        kid: 'did:example:1#k',
      });
      expect(verifyDetachedJws(jws, payload, key)).toBe(true);
      expect(verifyDetachedJws(jws, payload, key.publicJwk())).toBe(true);
      const changed = Buffer.from(payload);
      changed[0]! ^= 1;
      expect(verifyDetachedJws(jws, changed, key)).toBe(false);
      expect(verifyDetachedJws(jws, payload.subarray(1), key)).toBe(false);
      expect(verifyDetachedJws(jws, payload, KeyPair.generate(type))).toBe(false);
    },
  );

  it('accepts the ordinary detached form (payload base64url-encoded into the signing input)', () => {
    const key = KeyPair.generate('Ed25519');
    const header = base64UrlEncode('{"alg":"EdDSA"}');
    const signature = key.sign(Buffer.from(`${header}.${base64UrlEncode(payload)}`));
    expect(verifyDetachedJws(`${header}..${base64UrlEncode(signature)}`, payload, key)).toBe(true);
    expect(verifyDetachedJws(`${header}..${base64UrlEncode(signature)}`, Buffer.from('other'), key)).toBe(false);
  });

  it('returns false for every defect of the JWS itself', () => {
    const key = KeyPair.generate('Ed25519');
    const jws = signDetachedJws(payload, key);
    const [header, , signature] = jws.split('.') as [string, string, string];
    const signedWith = (headerJson: string): string => {
      const segment = base64UrlEncode(headerJson);
      return `${segment}..${base64UrlEncode(key.sign(Buffer.concat([Buffer.from(`${segment}.`), payload])))}`;
    };
    expect(verifyDetachedJws(signedWith('{"alg":"EdDSA","b64":false,"crit":["b64"]}'), payload, key)).toBe(true);
    const defects = [
      `${header}.${base64UrlEncode(payload)}.${signature}`, // attached payload
      `${header}..`, // no signature
      `${header}..${signature}=`, // padded signature
      `${header}.${signature}`, // two parts
      `${header}...${signature}`, // four parts
      `${header}..${base64UrlEncode(Buffer.from(signature, 'base64url').subarray(2))}`, // truncated signature
      signedWith('{"alg":"EdDSA","b64":false}'), // b64 false not declared critical
      signedWith('{"alg":"EdDSA","b64":"false","crit":["b64"]}'), // b64 not a boolean
      signedWith('{"alg":"EdDSA","b64":false,"crit":["b64","exp"],"exp":1}'), // unknown critical parameter
      signedWith('{"alg":"ES256","b64":false,"crit":["b64"]}'), // alg not the key's
      signedWith('{"alg":"none","b64":false,"crit":["b64"]}'),
      signedWith('["EdDSA"]'),
      '',
      42 as unknown as string,
    ];
    for (const defect of defects) expect(verifyDetachedJws(defect, payload, key), String(defect)).toBe(false);
  });

  it('throws only for an unusable key', () => {
    const jws = signDetachedJws(payload, KeyPair.generate('Ed25519'));
    expect(() => verifyDetachedJws(jws, payload, { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' })).toThrow(AppError);
    expect(() => verifyDetachedJws(jws, payload, KeyPair.generate('X25519'))).toThrow(
      'X25519 keys cannot verify signatures',
    );
  });

  it('refuses header members that would contradict the unencoded form', () => {
    const key = KeyPair.generate('Ed25519');
    expect(() => signDetachedJws(payload, key, { b64: true })).toThrow('a detached JWS header always has b64 false');
    expect(() => signDetachedJws(payload, key, { crit: ['exp'] })).toThrow(
      'a detached JWS header always has b64 false',
    );
    expect(() => signDetachedJws(payload, key, { alg: 'ES256' })).toThrow('alg ES256 does not match key type Ed25519');
    expect(signDetachedJws(payload, key, { b64: false, crit: ['b64'] }).split('.')[0]).toBe(ED25519_2018_HEADER);
  });
});
