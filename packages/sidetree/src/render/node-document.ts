import { base58Encode, base64UrlDecode, multibaseEncode } from '@anchor/common/encoding';
import type { JsonObject } from '../json.js';
import { SUITE_CONTEXT_OF_KEY_TYPE } from '../patches/key-types.js';
import {
  VERIFICATION_RELATIONSHIPS,
  type InternalDocument,
  type PublicKeyEntry,
  type VerificationRelationship,
} from '../patches/types.js';

export const DID_CONTEXT = 'https://www.w3.org/ns/did/v1';
export const DID_RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1';

// Multicodec prefix of an Ed25519 public key (0xed, varint-encoded): what makes `z6Mk…` keys.
const ED25519_MULTICODEC = Buffer.from([0xed, 0x01]);

/**
 * A did:node DID document in Orb's rendering: absolute ids `<did>#<id>`, the DID context plus one
 * suite context per key type (first seen first), Ed25519VerificationKey2018 keys as publicKeyBase58,
 * Ed25519VerificationKey2020 keys as publicKeyMultibase, every other key as its stored publicKeyJwk;
 * relationships, services (extra members kept) and alsoKnownAs only when non-empty.
 */
export function renderNodeDocument(document: InternalDocument, id: string): JsonObject {
  const contexts: string[] = [DID_CONTEXT];
  const relationships = new Map<VerificationRelationship, string[]>(
    VERIFICATION_RELATIONSHIPS.map((relationship) => [relationship, []]),
  );
  const verificationMethod = document.publicKeys.map((key) => {
    const context = SUITE_CONTEXT_OF_KEY_TYPE[key.type];
    if (context !== undefined && !contexts.includes(context)) contexts.push(context);
    const keyId = `${id}#${key.id}`;
    for (const purpose of new Set(key.purposes ?? [])) relationships.get(purpose)?.push(keyId);
    return { id: keyId, type: key.type, controller: id, ...keyMaterial(key) };
  });

  const rendered: JsonObject = { '@context': contexts, id };
  if (verificationMethod.length > 0) rendered.verificationMethod = verificationMethod;
  for (const [relationship, ids] of relationships) if (ids.length > 0) rendered[relationship] = ids;
  if (document.services.length > 0) {
    rendered.service = document.services.map((service) => ({ ...service, id: `${id}#${service.id}` }));
  }
  if (document.alsoKnownAs.length > 0) rendered.alsoKnownAs = [...document.alsoKnownAs];
  return rendered;
}

/** A deactivated did:node DID: only the context and the id. */
export function renderDeactivatedNodeDocument(id: string): JsonObject {
  return { '@context': [DID_CONTEXT], id };
}

function keyMaterial(key: PublicKeyEntry): JsonObject {
  if (key.publicKeyJwk === undefined) return { publicKeyBase58: key.publicKeyBase58 };
  if (key.type === 'Ed25519VerificationKey2018')
    return { publicKeyBase58: base58Encode(base64UrlDecode(key.publicKeyJwk.x as string)) };
  if (key.type === 'Ed25519VerificationKey2020') {
    return {
      publicKeyMultibase: multibaseEncode(
        Buffer.concat([ED25519_MULTICODEC, base64UrlDecode(key.publicKeyJwk.x as string)]),
        'base58btc',
      ),
    };
  }
  return { publicKeyJwk: key.publicKeyJwk };
}
