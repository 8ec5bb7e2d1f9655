import { base64UrlPaddedDecode, base64UrlPaddedEncode as b64 } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import type { RecipientPublicKey, RecipientWrappedKey } from '../crypto/wrap/index.js';
import type { WirePublicKey, WireWrappedKey } from './schemas.js';

/** Bytes from a padded base64url field (trustbloc/kms's encoding of every binary field), or 400 naming the field. */
export function bytesOf(value: string, field: string): Buffer {
  try {
    return base64UrlPaddedDecode(value);
  } catch {
    throw badRequest(`${field}: not base64url with padding`);
  }
}

/** Optional bytes: empty when absent. */
export function optionalBytesOf(value: string | undefined, field: string): Buffer {
  return value === undefined ? Buffer.alloc(0) : bytesOf(value, field);
}

/** Every bytes field of a list (BBS messages), 400 naming the index. */
export function bytesListOf(values: readonly string[], field: string): Buffer[] {
  return values.map((value, index) => bytesOf(value, `${field}[${index}]`));
}

/**
 * trustbloc/kms's wrap/unwrap JSON: every member base64url with padding, the strings `kid`, `curve`, `type` and
 * `alg` included (their bytes are the UTF-8 of the string); `y` is empty for X25519.
 */
const text = (value: string, field: string): string => bytesOf(value, field).toString('utf8');

export function publicKeyFromWire(key: WirePublicKey, field: string): RecipientPublicKey {
  return {
    ...(key.kid === undefined ? {} : { kid: text(key.kid, `${field}.kid`) }),
    x: bytesOf(key.x, `${field}.x`),
    y: optionalBytesOf(key.y, `${field}.y`),
    curve: text(key.curve, `${field}.curve`),
    type: text(key.type, `${field}.type`),
  };
}

export function publicKeyToWire(key: RecipientPublicKey): WirePublicKey {
  return {
    ...(key.kid === undefined ? {} : { kid: b64(key.kid) }),
    x: b64(key.x),
    y: b64(key.y),
    curve: b64(key.curve),
    type: b64(key.type),
  };
}

export function wrappedKeyFromWire(wrapped: WireWrappedKey): RecipientWrappedKey {
  return {
    ...(wrapped.kid === undefined ? {} : { kid: text(wrapped.kid, 'wrappedKey.kid') }),
    encryptedKey: bytesOf(wrapped.encryptedCEK, 'wrappedKey.encryptedCEK'),
    epk: publicKeyFromWire(wrapped.epk, 'wrappedKey.epk'),
    alg: text(wrapped.alg, 'wrappedKey.alg'),
    apu: optionalBytesOf(wrapped.apu, 'wrappedKey.apu'),
    apv: optionalBytesOf(wrapped.apv, 'wrappedKey.apv'),
  };
}

export function wrappedKeyToWire(wrapped: RecipientWrappedKey): WireWrappedKey {
  return {
    ...(wrapped.kid === undefined ? {} : { kid: b64(wrapped.kid) }),
    encryptedCEK: b64(wrapped.encryptedKey),
    epk: publicKeyToWire(wrapped.epk),
    alg: b64(wrapped.alg),
    apu: b64(wrapped.apu),
    apv: b64(wrapped.apv),
  };
}
