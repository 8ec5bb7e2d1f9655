import { KeyPair, ed25519ToX25519 } from '../crypto/index.js';
import { badRequest } from '../errors/index.js';
import type { DidDocument, VerificationMethod } from './document.js';
import { parseDid } from './syntax.js';

/**
 * did:key (W3C CCG did:key v0.7): the DID is `did:key:` + the key's multikey form (`z` + base58btc of
 * multicodec || key), and the document is generated from it. An Ed25519 key also gets the X25519
 * key-agreement key derived from it, as the spec's "encryption method" does.
 */
export type DidKeyFormat = 'default' | 'JsonWebKey2020' | 'Multikey';

const DID_CONTEXT = 'https://www.w3.org/ns/did/v1';
const CONTEXTS = {
  Ed25519VerificationKey2020: 'https://w3id.org/security/suites/ed25519-2020/v1',
  X25519KeyAgreementKey2020: 'https://w3id.org/security/suites/x25519-2020/v1',
  JsonWebKey2020: 'https://w3id.org/security/suites/jws-2020/v1',
  Multikey: 'https://w3id.org/security/multikey/v1',
} as const;

export function didKeyFromKeyPair(key: KeyPair): string {
  return `did:key:${key.publicKeyMultibase()}`;
}

/** The public key a did:key encodes; bad_request when the DID is not a well-formed did:key. */
export function keyPairFromDidKey(did: string): KeyPair {
  const { method, id } = parseDid(did);
  if (method !== 'key') throw badRequest(`${did} is not a did:key`);
  if (!id.startsWith('z'))
    throw badRequest(`did:key identifiers are base58btc multibase ('z...'), got '${id.slice(0, 8)}'`);
  return KeyPair.fromMultibase(id);
}

/**
 * The DID document of a did:key. Default form: Ed25519VerificationKey2020 / X25519KeyAgreementKey2020 with
 * publicKeyMultibase for Ed25519 and X25519 keys, JsonWebKey2020 with publicKeyJwk for the EC curves.
 */
export function resolveDidKey(did: string, options: { format?: DidKeyFormat } = {}): DidDocument {
  const key = keyPairFromDidKey(did);
  const format = options.format ?? 'default';
  const contexts = new Set<string>([DID_CONTEXT]);
  const method = (methodKey: KeyPair): VerificationMethod => {
    const vm = verificationMethod(did, methodKey, format);
    contexts.add(CONTEXTS[vm.type as keyof typeof CONTEXTS]);
    return vm;
  };

  if (key.type === 'X25519') {
    const agreement = method(key);
    return { '@context': [...contexts], id: did, verificationMethod: [agreement], keyAgreement: [agreement.id] };
  }
  const signing = method(key);
  const document: DidDocument = {
    '@context': [],
    id: did,
    verificationMethod: [signing],
    authentication: [signing.id],
    assertionMethod: [signing.id],
    capabilityDelegation: [signing.id],
    capabilityInvocation: [signing.id],
  };
  if (key.type === 'Ed25519') {
    const agreement = method(ed25519ToX25519(key));
    document.verificationMethod!.push(agreement);
    document.keyAgreement = [agreement.id];
  }
  document['@context'] = [...contexts];
  return document;
}

function verificationMethod(did: string, key: KeyPair, format: DidKeyFormat): VerificationMethod {
  const fingerprint = key.publicKeyMultibase();
  const base = { id: `${did}#${fingerprint}`, controller: did };
  if (format === 'Multikey') return { ...base, type: 'Multikey', publicKeyMultibase: fingerprint };
  if (format === 'JsonWebKey2020' || (key.type !== 'Ed25519' && key.type !== 'X25519')) {
    return { ...base, type: 'JsonWebKey2020', publicKeyJwk: key.publicJwk() };
  }
  const type = key.type === 'Ed25519' ? 'Ed25519VerificationKey2020' : 'X25519KeyAgreementKey2020';
  return { ...base, type, publicKeyMultibase: fingerprint };
}
