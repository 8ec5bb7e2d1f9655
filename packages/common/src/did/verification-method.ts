import { LRUCache } from 'lru-cache';
import { KeyPair, type KeyType, publicKeyFromJwk } from '../crypto/index.js';
import { base58Decode } from '../encoding/index.js';
import { badRequest, notFound } from '../errors/index.js';
import {
  type DidDocument,
  type Service,
  type VerificationMethod,
  type VerificationRelationship,
  VERIFICATION_RELATIONSHIPS,
} from './document.js';

/**
 * Finding verification methods in a DID document and turning them into keys. Ids may be absolute DID URLs
 * or relative (`#key-1`, resolved against the document id, as Sidetree documents write them); methods may
 * sit in `verificationMethod` and be referenced from a relationship, or be embedded in the relationship.
 */
export interface FindOptions {
  /** The relationship the method must be listed under, e.g. assertionMethod for a credential proof. */
  purpose?: VerificationRelationship;
  /** Other DIDs naming the same subject (resolution metadata canonicalId / equivalentId, long vs short form). */
  equivalentIds?: readonly string[];
}

/** An id made absolute against the document id: `#key` → `<doc id>#key`. */
export function absoluteId(documentId: string, id: string): string {
  return id.startsWith('#') ? `${documentId}${id}` : id;
}

/** Rewrites a reference made through an equivalent DID (e.g. the short form of a long-form DID) onto the document id. */
function canonicalReference(document: DidDocument, reference: string, equivalentIds: readonly string[]): string {
  const absolute = absoluteId(document.id, reference);
  for (const alias of equivalentIds) {
    const viaAlias = alias !== document.id && (absolute.startsWith(`${alias}#`) || absolute.startsWith(`${alias}?`));
    if (viaAlias) return document.id + absolute.slice(alias.length);
  }
  return absolute;
}

function isMethod(value: unknown): value is VerificationMethod {
  return typeof value === 'object' && value !== null && typeof (value as VerificationMethod).id === 'string';
}

/** Every method defined in the document: listed in `verificationMethod` or embedded in a relationship. */
function definedMethods(document: DidDocument): VerificationMethod[] {
  const listed = Array.isArray(document.verificationMethod) ? document.verificationMethod.filter(isMethod) : [];
  const embedded = VERIFICATION_RELATIONSHIPS.flatMap((relationship) => {
    const entries = document[relationship];
    return Array.isArray(entries) ? entries.filter(isMethod) : [];
  });
  return [...listed, ...embedded];
}

/**
 * The methods usable for `purpose`, in document order: embedded ones, and references that this document
 * defines. References into other DIDs' documents are left out (resolve those through a resolver).
 */
export function verificationMethodsFor(document: DidDocument, purpose: VerificationRelationship): VerificationMethod[] {
  const entries = document[purpose];
  if (!Array.isArray(entries)) return [];
  const defined = definedMethods(document);
  return entries.flatMap((entry) => {
    if (isMethod(entry)) return [entry];
    if (typeof entry !== 'string') return [];
    const target = absoluteId(document.id, entry);
    const method = defined.find((candidate) => absoluteId(document.id, candidate.id) === target);
    return method ? [method] : [];
  });
}

/**
 * The verification method `reference` names (absolute DID URL or `#fragment`). With `purpose`, the method
 * must also be authorised for that relationship. Throws not_found otherwise.
 */
export function findVerificationMethod(
  document: DidDocument,
  reference: string,
  options: FindOptions = {},
): VerificationMethod {
  if (typeof reference !== 'string' || reference.length === 0)
    throw badRequest('verification method reference must be a non-empty string');
  const target = canonicalReference(document, reference, options.equivalentIds ?? []);
  const candidates = options.purpose ? verificationMethodsFor(document, options.purpose) : definedMethods(document);
  const method = candidates.find((candidate) => absoluteId(document.id, candidate.id) === target);
  if (method) return method;
  if (
    options.purpose &&
    definedMethods(document).some((candidate) => absoluteId(document.id, candidate.id) === target)
  ) {
    throw notFound(`verification method ${reference} is not authorized for ${options.purpose} in ${document.id}`);
  }
  throw notFound(`verification method ${reference} not found in ${document.id}`);
}

/** The service `reference` names (absolute DID URL or `#fragment`); not_found when absent. */
export function findService(
  document: DidDocument,
  reference: string,
  options: Pick<FindOptions, 'equivalentIds'> = {},
): Service {
  const target = canonicalReference(document, reference, options.equivalentIds ?? []);
  const service = (Array.isArray(document.service) ? document.service : []).find(
    (candidate) => typeof candidate?.id === 'string' && absoluteId(document.id, candidate.id) === target,
  );
  if (!service) throw notFound(`service ${reference} not found in ${document.id}`);
  return service;
}

/** Key types implied by the verification method types whose keys are bare (publicKeyBase58) or must match. */
const KEY_TYPE_OF_METHOD_TYPE: Readonly<Record<string, KeyType>> = {
  Ed25519VerificationKey2018: 'Ed25519',
  Ed25519VerificationKey2020: 'Ed25519',
  X25519KeyAgreementKey2019: 'X25519',
  X25519KeyAgreementKey2020: 'X25519',
  EcdsaSecp256k1VerificationKey2019: 'secp256k1',
};

/**
 * The public key of a verification method, from `publicKeyJwk`, `publicKeyMultibase` or `publicKeyBase58`.
 * The key must agree with the method type where the type names one (an Ed25519VerificationKey2020 holding
 * a P-256 key is rejected), and a method carrying private key material is refused outright.
 */
export function keyPairFromVerificationMethod(method: VerificationMethod): KeyPair {
  if (!isMethod(method)) throw badRequest('verification method must be an object with an id');
  const impliedType = KEY_TYPE_OF_METHOD_TYPE[method.type];
  const key = publicKeyOf(method, impliedType);
  if (impliedType && key.type !== impliedType) {
    throw badRequest(`verification method ${method.id} of type ${method.type} holds a ${key.type} key`);
  }
  return key;
}

function publicKeyOf(method: VerificationMethod, impliedType: KeyType | undefined): KeyPair {
  const { publicKeyJwk, publicKeyMultibase, publicKeyBase58 } = method;
  const present = [publicKeyJwk, publicKeyMultibase, publicKeyBase58].filter((value) => value !== undefined).length;
  if (present !== 1) {
    throw badRequest(
      `verification method ${method.id} must carry exactly one of publicKeyJwk, publicKeyMultibase, publicKeyBase58`,
    );
  }
  if (
    method.privateKeyJwk !== undefined ||
    method.privateKeyMultibase !== undefined ||
    method.privateKeyBase58 !== undefined
  ) {
    throw badRequest(`verification method ${method.id} carries a private key`);
  }
  if (publicKeyJwk !== undefined) {
    if (typeof publicKeyJwk !== 'object' || publicKeyJwk === null)
      throw badRequest(`publicKeyJwk of ${method.id} must be an object`);
    if (publicKeyJwk.d !== undefined) throw badRequest(`publicKeyJwk of ${method.id} carries a private key`);
    return publicKeyFromJwk(publicKeyJwk);
  }
  if (publicKeyMultibase !== undefined) {
    if (typeof publicKeyMultibase !== 'string') throw badRequest(`publicKeyMultibase of ${method.id} must be a string`);
    return cached(`multibase|${publicKeyMultibase}`, () => KeyPair.fromMultibase(publicKeyMultibase));
  }
  if (typeof publicKeyBase58 !== 'string') throw badRequest(`publicKeyBase58 of ${method.id} must be a string`);
  if (!impliedType)
    throw badRequest(`cannot tell the key type of publicKeyBase58 in a ${method.type} verification method`);
  return cached(`${impliedType}|${publicKeyBase58}`, () => {
    let bytes: Buffer;
    try {
      bytes = base58Decode(publicKeyBase58);
    } catch {
      throw badRequest(`publicKeyBase58 of ${method.id} is not base58btc`);
    }
    return KeyPair.fromPublicKeyBytes(impliedType, bytes);
  });
}

/**
 * Imported keys by their encoding: documents are resolved again and again for the same few keys, and an EC
 * import (point decompression and curve check) costs hundreds of microseconds. JWKs have their own cache.
 */
const keyCache = new LRUCache<string, KeyPair>({ max: 1024 });

function cached(cacheKey: string, build: () => KeyPair): KeyPair {
  const hit = keyCache.get(cacheKey);
  if (hit) return hit;
  const key = build();
  keyCache.set(cacheKey, key);
  return key;
}
