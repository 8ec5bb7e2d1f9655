import { encodePublicKeyPem, type PemForm, type PublicKeySource } from './public-key-pem.js';

/** The public key resource the spec serves at `<service>/keys/main-key` (spec "Public key"). */
export interface PublicKeyDocument {
  id: string;
  owner: string;
  publicKeyPem: string;
}

export class KeyDocumentError extends Error {}

/** The key name Orb uses for its HTTP-signature key. */
export const MAIN_KEY = 'main-key';

/**
 * The keyId a service signs with: `<service>/keys/main-key` for a URL service id, `<did>#main-key` for a DID
 * service id (the spec's "Service actor" with a did:web id; its key is then found through the DID document).
 */
export function serviceKeyId(serviceId: string, keyName: string = MAIN_KEY): string {
  return serviceId.startsWith('did:') ? `${serviceId}#${keyName}` : `${serviceId.replace(/\/+$/, '')}/keys/${keyName}`;
}

/**
 * The public key document of a service, ready to serve as JSON: `{id, owner, publicKeyPem}` with the PEM in
 * Orb's form by default, so Orb nodes can verify this node's signatures.
 */
export function servicePublicKeyDocument(options: {
  serviceId: string;
  key: PublicKeySource;
  keyName?: string;
  pemForm?: PemForm;
}): PublicKeyDocument {
  return {
    id: serviceKeyId(options.serviceId, options.keyName),
    owner: options.serviceId,
    publicKeyPem: encodePublicKeyPem(options.key, options.pemForm ?? 'original'),
  };
}

/**
 * Reads the document fetched from a keyId URL. It is normally the key itself (`id` must equal the keyId, so a
 * server cannot answer for another key); an actor document embedding the key under `publicKey` (the
 * Mastodon style, `<actor>#main-key`) is read too, its owner being the actor.
 */
export function parsePublicKeyDocument(document: unknown, keyId: string): PublicKeyDocument {
  if (!isObject(document)) throw new KeyDocumentError(`the key document at ${keyId} is not a JSON object`);
  if (document.publicKeyPem === undefined && document.publicKey !== undefined) {
    const embedded = listOf(document.publicKey).find((k) => isObject(k) && k.id === keyId);
    if (!embedded) throw new KeyDocumentError(`the document at ${keyId} embeds no key with that id`);
    const owner = (embedded as Record<string, unknown>).owner ?? document.id;
    return parsePublicKeyDocument({ ...(embedded as Record<string, unknown>), owner }, keyId);
  }
  if (document.id !== keyId)
    throw new KeyDocumentError(`the key document id ${JSON.stringify(document.id)} does not match keyId ${keyId}`);
  if (typeof document.owner !== 'string' || !isHttpUrl(document.owner)) {
    throw new KeyDocumentError(`the key document ${keyId} has no owner URL`);
  }
  if (typeof document.publicKeyPem !== 'string')
    throw new KeyDocumentError(`the key document ${keyId} has no publicKeyPem`);
  return { id: document.id, owner: document.owner, publicKeyPem: document.publicKeyPem };
}

/** The ids of an actor's `publicKey`, which may be an object `{id, ...}`, a bare id string, or a list of either. */
export function actorPublicKeyIds(actor: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const entry of listOf(actor.publicKey)) {
    if (typeof entry === 'string') ids.push(entry);
    else if (isObject(entry) && typeof entry.id === 'string') ids.push(entry.id);
  }
  return ids;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

function listOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
