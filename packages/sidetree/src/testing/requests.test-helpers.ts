import { KeyPair, signJws, type KeyType } from '@anchor/common/crypto';
import { base64UrlDecode, base64UrlEncode, canonicalBytes } from '@anchor/common/encoding';
import { createRequest, deactivateRequest, recoverRequest, updateRequest } from '../client/build-requests.js';
import { addPublicKeys, addServices, documentKey, service } from '../client/patch-builders.js';
import type { Patch } from '../patches/types.js';
import { ORIGIN } from './ledger.test-helpers.js';

/** Keys and valid requests of one DID, to derive broken variants from in rejection tests. */
export function requestFixture(type: KeyType = 'Ed25519') {
  const keys = {
    recovery: KeyPair.generate(type),
    nextRecovery: KeyPair.generate(type),
    update: KeyPair.generate(type),
    nextUpdate: KeyPair.generate(type),
    document: KeyPair.generate(type),
  };
  const patches: Patch[] = [
    addPublicKeys(documentKey('key-1', keys.document, { purposes: ['authentication'] })),
    addServices(service('hub', 'LinkedDomains', 'https://hub.example.com')),
  ];
  const created = createRequest({ recoveryKey: keys.recovery, updateKey: keys.update, anchorOrigin: ORIGIN, patches });
  const didSuffix = created.didSuffix;
  return {
    keys,
    created,
    didSuffix,
    update: (overrides: Partial<Parameters<typeof updateRequest>[0]> = {}) =>
      updateRequest({
        didSuffix,
        updateKey: keys.update,
        nextUpdateKey: keys.nextUpdate,
        patches: [addServices(service('s2', 'T', 'https://s2.example.com'))],
        ...overrides,
      }),
    recover: (overrides: Partial<Parameters<typeof recoverRequest>[0]> = {}) =>
      recoverRequest({
        didSuffix,
        recoveryKey: keys.recovery,
        nextRecoveryKey: keys.nextRecovery,
        nextUpdateKey: keys.nextUpdate,
        anchorOrigin: ORIGIN,
        patches,
        ...overrides,
      }),
    deactivate: (overrides: Partial<Parameters<typeof deactivateRequest>[0]> = {}) =>
      deactivateRequest({ didSuffix, recoveryKey: keys.recovery, ...overrides }),
  };
}

/** The decoded payload of a compact JWS. */
export function payloadOf(jws: string): Record<string, unknown> {
  return JSON.parse(base64UrlDecode(jws.split('.')[1] as string).toString('utf8')) as Record<string, unknown>;
}

/** Re-signs a JWS with `key` after changing its payload (a genuine signature over tampered content). */
export function resign(jws: string, key: KeyPair, change: (payload: Record<string, unknown>) => void): string {
  const payload = payloadOf(jws);
  change(payload);
  return signJws(canonicalBytes(payload), key);
}

/** A JWS with exactly the given header text, signed by `key` over that header (bypassing signJws' checks). */
export function signWithHeader(headerJson: string, payload: unknown, key: KeyPair): string {
  const input = `${base64UrlEncode(headerJson)}.${base64UrlEncode(canonicalBytes(payload))}`;
  return `${input}.${base64UrlEncode(key.sign(Buffer.from(input, 'ascii')))}`;
}

/** A copy of a JSON value to break freely. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}
