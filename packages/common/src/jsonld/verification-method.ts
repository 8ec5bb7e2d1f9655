import { KeyPair, publicKeyFromJwk, type Jwk, type KeyType } from '../crypto/index.js';
import { base58Decode } from '../encoding/index.js';
import { AppError, badRequest } from '../errors/index.js';
import { PROOF_PURPOSES } from './proof-types.js';

/**
 * What proof verification needs to know about a verification method: its key, its controller, and the
 * verification relationships (assertionMethod, authentication, ...) under which the controller document
 * lists it. Where that comes from (did:key, did:web, the node's own did:node, a static document) is the
 * resolver's business, so verification never hard-wires a DID method.
 */
export interface ResolvedVerificationMethod {
  id: string;
  controller: string;
  key: KeyPair;
  purposes: readonly string[];
}

/** Resolves a verification method id (a DID URL); undefined when there is no such method. */
export type VerificationMethodResolver = (
  verificationMethodId: string,
) => Promise<ResolvedVerificationMethod | undefined>;

/** The parts of a DID / controller document this module reads. */
export interface ControllerDocument {
  id: string;
  verificationMethod?: unknown;
  [relationship: string]: unknown;
}

/**
 * A resolver over fixed controller documents (tests, a node's own DID document, a pinned peer document).
 * Every method is decoded up front, so a malformed document fails here with a clear error rather than
 * later, in the middle of a verification.
 */
export function controllerDocumentResolver(documents: readonly ControllerDocument[]): VerificationMethodResolver {
  const methods = new Map<string, ResolvedVerificationMethod>();
  for (const document of documents) {
    for (const method of verificationMethodsOf(document)) methods.set(method.id, method);
  }
  return async (id) => methods.get(id);
}

/** Every verification method of a controller document, with the relationships that reference it. */
export function verificationMethodsOf(document: ControllerDocument): ResolvedVerificationMethod[] {
  if (
    typeof document !== 'object' ||
    document === null ||
    typeof document.id !== 'string' ||
    document.id.length === 0
  ) {
    throw badRequest('controller document must be an object with a string id');
  }
  const declared = new Map<string, { entry: Record<string, unknown>; purposes: Set<string> }>();
  const declare = (value: unknown, where: string): string => {
    const entry = asObject(value, where);
    const id = absoluteId(document.id, entry.id, where);
    if (!declared.has(id)) declared.set(id, { entry, purposes: new Set() });
    return id;
  };

  for (const [index, entry] of asArray(document.verificationMethod, 'verificationMethod').entries()) {
    declare(entry, `verificationMethod[${index}]`);
  }
  for (const purpose of PROOF_PURPOSES) {
    for (const [index, reference] of asArray(document[purpose], purpose).entries()) {
      const where = `${purpose}[${index}]`;
      const id = typeof reference === 'string' ? absoluteId(document.id, reference, where) : declare(reference, where);
      const method = declared.get(id);
      if (!method)
        throw badRequest(`controller document ${document.id}: ${where} references ${id}, which it does not declare`);
      method.purposes.add(purpose);
    }
  }

  return [...declared].map(([id, { entry, purposes }]) => {
    const controller = entry.controller ?? document.id;
    if (typeof controller !== 'string') throw badRequest(`verification method ${id}: controller must be a string`);
    return { id, controller, key: publicKeyOf(id, entry), purposes: [...purposes] };
  });
}

/** Key types implied by verification method types that carry a bare `publicKeyBase58`. */
const BASE58_KEY_TYPES: Readonly<Record<string, KeyType>> = {
  Ed25519VerificationKey2018: 'Ed25519',
  Ed25519VerificationKey2020: 'Ed25519',
  EcdsaSecp256k1VerificationKey2019: 'secp256k1',
  X25519KeyAgreementKey2019: 'X25519',
};

function publicKeyOf(id: string, entry: Record<string, unknown>): KeyPair {
  try {
    if (typeof entry.publicKeyMultibase === 'string') return KeyPair.fromMultibase(entry.publicKeyMultibase);
    if (typeof entry.publicKeyJwk === 'object' && entry.publicKeyJwk !== null)
      return publicKeyFromJwk(entry.publicKeyJwk as Jwk);
    if (typeof entry.publicKeyBase58 === 'string') {
      const type = BASE58_KEY_TYPES[String(entry.type)];
      if (!type) throw badRequest(`publicKeyBase58 is not supported for type ${String(entry.type)}`);
      return KeyPair.fromPublicKeyBytes(type, base58Decode(entry.publicKeyBase58));
    }
  } catch (error) {
    const reason = error instanceof AppError ? error.message : 'undecodable key';
    throw badRequest(`verification method ${id}: ${reason}`, { cause: error });
  }
  throw badRequest(`verification method ${id} has no publicKeyMultibase, publicKeyJwk or publicKeyBase58`);
}

function absoluteId(documentId: string, id: unknown, where: string): string {
  if (typeof id !== 'string' || id.length === 0)
    throw badRequest(`controller document ${documentId}: ${where} needs a string id`);
  return id.startsWith('#') ? `${documentId}${id}` : id;
}

function asArray(value: unknown, where: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw badRequest(`controller document ${where} must be an array`);
  return value;
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest(`controller document ${where} must be an object`);
  return value as Record<string, unknown>;
}
