import { base64UrlDecode, isCanonicalBase64Url } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import { isJsonObject, rejectUnknownMembers } from '../json.js';
import type { ParseMode } from '../operations/parse-mode.js';
import { checkId } from './ids.js';
import { ED25519_KEY_TYPES, GENERAL_KEY_TYPES, KEY_TYPES_FOR_RELATIONSHIP } from './key-types.js';
import { checkBase58Material, checkJwkMaterial } from './public-key-material.js';
import { VERIFICATION_RELATIONSHIPS, type PublicKeyEntry, type VerificationRelationship } from './types.js';

// Go accepts exactly these members; `controller` and `publicKeyMultibase` are rejected there too.
const PUBLIC_KEY_MEMBERS: ReadonlySet<string> = new Set(['id', 'type', 'purposes', 'publicKeyJwk', 'publicKeyBase58']);
const ED25519_KEY_LENGTH = 32;

/**
 * Validates the public keys of an add-public-keys patch (non-empty) or a replace document (may be empty):
 * ids valid and unique, a supported type compatible with every purpose, purposes non-empty when present,
 * exactly one of publicKeyJwk / publicKeyBase58.
 */
export function checkPublicKeys(
  value: unknown,
  mode: ParseMode,
  options: { allowEmpty: boolean; allowUnknownKeyTypes: boolean },
): PublicKeyEntry[] {
  if (!Array.isArray(value)) throw badRequest('publicKeys must be an array');
  if (value.length === 0 && !options.allowEmpty) throw badRequest('publicKeys must not be empty');
  const seen = new Set<string>();
  return value.map((entry) => {
    const key = checkPublicKey(entry, mode, options.allowUnknownKeyTypes);
    if (seen.has(key.id)) throw badRequest(`public key id '${key.id}' appears more than once`);
    seen.add(key.id);
    return key;
  });
}

function checkPublicKey(value: unknown, mode: ParseMode, allowUnknownKeyTypes: boolean): PublicKeyEntry {
  if (!isJsonObject(value)) throw badRequest('each public key must be a JSON object');
  const id = checkId(value.id, 'public key');
  rejectUnknownMembers(value, PUBLIC_KEY_MEMBERS, `public key '${id}'`);
  const { type } = value;
  if (typeof type !== 'string' || type.length === 0)
    throw badRequest(`public key '${id}' type must be a non-empty string`);
  const purposes = value.purposes === undefined ? undefined : checkPurposes(value.purposes, id, mode);
  checkTypeAgainstPurposes(id, type, purposes);
  checkKeyMaterial(value, id, type, mode, allowUnknownKeyTypes);
  return value as unknown as PublicKeyEntry;
}

function checkPurposes(value: unknown, id: string, mode: ParseMode): VerificationRelationship[] {
  if (!Array.isArray(value)) throw badRequest(`public key '${id}' purposes must be an array`);
  if (value.length === 0) throw badRequest(`public key '${id}' purposes must not be empty when present`);
  if (value.length > VERIFICATION_RELATIONSHIPS.length) {
    throw badRequest(
      `public key '${id}' has ${value.length} purposes; at most ${VERIFICATION_RELATIONSHIPS.length} exist`,
    );
  }
  for (const purpose of value) {
    if (!(VERIFICATION_RELATIONSHIPS as readonly unknown[]).includes(purpose)) {
      throw badRequest(
        `public key '${id}' purpose '${String(purpose)}' is not one of ${VERIFICATION_RELATIONSHIPS.join(', ')}`,
      );
    }
  }
  // Go tolerates repeats (the renderer lists the key once); ingest refuses them as the spec does.
  if (mode === 'ingest' && new Set(value).size !== value.length)
    throw badRequest(`public key '${id}' lists a purpose more than once`);
  return value as VerificationRelationship[];
}

function checkTypeAgainstPurposes(id: string, type: string, purposes: VerificationRelationship[] | undefined): void {
  if (purposes === undefined) {
    if (!GENERAL_KEY_TYPES.has(type))
      throw badRequest(
        `public key '${id}' type '${type}' is not supported (supported: ${[...GENERAL_KEY_TYPES].join(', ')})`,
      );
    return;
  }
  for (const purpose of purposes) {
    if (!KEY_TYPES_FOR_RELATIONSHIP[purpose].has(type))
      throw badRequest(`public key '${id}' type '${type}' cannot be used for ${purpose}`);
  }
}

function checkKeyMaterial(
  value: Record<string, unknown>,
  id: string,
  type: string,
  mode: ParseMode,
  allowUnknownKeyTypes: boolean,
): void {
  const { publicKeyJwk: jwk, publicKeyBase58: base58 } = value;
  if ((jwk === undefined) === (base58 === undefined))
    throw badRequest(`public key '${id}' must have exactly one of publicKeyJwk and publicKeyBase58`);
  if (base58 !== undefined) {
    if (typeof base58 !== 'string' || base58.length === 0)
      throw badRequest(`public key '${id}' publicKeyBase58 must be a non-empty string`);
    if (mode === 'ingest') checkBase58Material(base58, type, id, allowUnknownKeyTypes);
    return;
  }
  if (!isJsonObject(jwk)) throw badRequest(`public key '${id}' publicKeyJwk must be a JSON object`);
  if (typeof jwk.kty !== 'string' || jwk.kty.length === 0)
    throw badRequest(`public key '${id}' publicKeyJwk.kty is missing`);
  if (jwk.kty === 'RSA') {
    if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string')
      throw badRequest(`public key '${id}' RSA publicKeyJwk needs n and e`);
  } else {
    if (typeof jwk.crv !== 'string' || jwk.crv.length === 0)
      throw badRequest(`public key '${id}' publicKeyJwk.crv is missing`);
    if (typeof jwk.x !== 'string' || jwk.x.length === 0)
      throw badRequest(`public key '${id}' publicKeyJwk.x is missing`);
  }
  if (mode === 'ingest' && 'd' in jwk)
    throw badRequest(`public key '${id}' publicKeyJwk must not carry the private member d`);
  // The renderer turns these into raw Ed25519 keys; anything else could not be rendered at all.
  if (ED25519_KEY_TYPES.has(type)) {
    const x = jwk.x as string;
    if (
      jwk.kty !== 'OKP' ||
      jwk.crv !== 'Ed25519' ||
      !isCanonicalBase64Url(x) ||
      base64UrlDecode(x).length !== ED25519_KEY_LENGTH
    ) {
      throw badRequest(`public key '${id}' of type ${type} needs an OKP Ed25519 publicKeyJwk with a 32-byte x`);
    }
  }
  // Anchored operations were checked by the node that took them; a usable key is an ingest rule (as the spec's).
  if (mode === 'ingest') checkJwkMaterial(jwk, id, allowUnknownKeyTypes);
}
