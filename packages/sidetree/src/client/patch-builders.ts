import type { Jwk, KeyPair } from '@anchor/common/crypto';
import type {
  Patch,
  PublicKeyEntry,
  ReplaceDocument,
  ServiceEntry,
  VerificationRelationship,
} from '../patches/types.js';
import { publicJwkOf } from './keys.js';

/** Builders for delta patches, e.g. `addPublicKeys(documentKey('key-1', keyPair, { purposes: ['authentication'] }))`. */
export interface DocumentKeyOptions {
  /** Defaults to JsonWebKey2020. */
  type?: string;
  purposes?: VerificationRelationship[];
}

/** A document public key entry carrying the public JWK of `key` (never its private part). */
export function documentKey(id: string, key: KeyPair | Jwk, options: DocumentKeyOptions = {}): PublicKeyEntry {
  const entry: PublicKeyEntry = { id, type: options.type ?? 'JsonWebKey2020', publicKeyJwk: publicJwkOf(key) };
  if (options.purposes !== undefined) entry.purposes = [...options.purposes];
  return entry;
}

export function service(
  id: string,
  type: string,
  serviceEndpoint: unknown,
  extra: Record<string, unknown> = {},
): ServiceEntry {
  return { ...extra, id, type, serviceEndpoint };
}

export const addPublicKeys = (...publicKeys: PublicKeyEntry[]): Patch => ({ action: 'add-public-keys', publicKeys });
export const removePublicKeys = (...ids: string[]): Patch => ({ action: 'remove-public-keys', ids });
export const addServices = (...services: ServiceEntry[]): Patch => ({ action: 'add-services', services });
export const removeServices = (...ids: string[]): Patch => ({ action: 'remove-services', ids });
export const addAlsoKnownAs = (...uris: string[]): Patch => ({ action: 'add-also-known-as', uris });
export const removeAlsoKnownAs = (...uris: string[]): Patch => ({ action: 'remove-also-known-as', uris });
/** DIF profile only: reset the document to exactly these keys and services. */
export const replaceDocument = (document: ReplaceDocument): Patch => ({ action: 'replace', document });
