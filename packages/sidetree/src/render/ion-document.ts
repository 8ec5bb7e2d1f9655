import type { JsonObject } from '../json.js';
import type { InternalDocument, VerificationRelationship } from '../patches/types.js';
import { DID_CONTEXT } from './node-document.js';

/**
 * A DID document in the ION / DIF reference rendering (what the DIF vectors expect): relative ids `#<id>`,
 * `@base` set to the DID, each key as `{id, controller, type, publicKeyJwk}`, relationships in the order
 * keys and purposes appear.
 */
export function renderIonDocument(document: InternalDocument, id: string): JsonObject {
  const relationships = new Map<VerificationRelationship, string[]>();
  const verificationMethod = document.publicKeys.map((key) => {
    const reference = `#${key.id}`;
    for (const purpose of new Set(key.purposes ?? [])) {
      const list = relationships.get(purpose);
      if (list) list.push(reference);
      else relationships.set(purpose, [reference]);
    }
    return { id: reference, controller: id, type: key.type, publicKeyJwk: key.publicKeyJwk };
  });
  const rendered: JsonObject = { id, '@context': [DID_CONTEXT, { '@base': id }] };
  if (document.services.length > 0) {
    rendered.service = document.services.map((service) => ({
      id: `#${service.id}`,
      type: service.type,
      serviceEndpoint: service.serviceEndpoint,
    }));
  }
  if (verificationMethod.length > 0) rendered.verificationMethod = verificationMethod;
  for (const [relationship, references] of relationships) rendered[relationship] = references;
  return rendered;
}

export function renderDeactivatedIonDocument(id: string): JsonObject {
  return { id, '@context': [DID_CONTEXT, { '@base': id }] };
}
