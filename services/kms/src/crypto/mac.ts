import { createHmac, timingSafeEqual } from 'node:crypto';
import { rawSecret, requireBytes, requireKind, type KeyMaterial } from './key-material.js';

const TAG_LENGTH = 32;

/**
 * HMAC-SHA256 over `data`, the full 32-byte tag, without the Tink key-id header aries puts before it (README).
 */
export function computeMac(m: KeyMaterial, data: Uint8Array): Uint8Array {
  requireKind(m, ['mac'], 'compute a MAC');
  requireBytes(data, 'data');
  return createHmac('sha256', rawSecret(m)).update(data).digest();
}

/** True when `mac` is the tag `computeMac` gives for `data`; any other value or length is false. */
export function verifyMac(m: KeyMaterial, mac: Uint8Array, data: Uint8Array): boolean {
  requireKind(m, ['mac'], 'verify a MAC');
  requireBytes(mac, 'mac');
  requireBytes(data, 'data');
  const expected = computeMac(m, data);
  return mac.length === TAG_LENGTH && timingSafeEqual(expected, mac);
}
