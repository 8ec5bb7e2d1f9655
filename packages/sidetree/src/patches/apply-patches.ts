import type { InternalDocument, Patch, PublicKeyEntry, ServiceEntry } from './types.js';

/**
 * Applies validated patches to a document and returns a new one; the input is never modified, so the
 * resolver can keep earlier states (and revert a failed operation) for free. add-* upserts by id: an existing
 * entry is replaced in place, a new one appended. remove-* ignores ids it does not find.
 */
export function applyPatches(document: InternalDocument, patches: readonly Patch[]): InternalDocument {
  let { publicKeys, services, alsoKnownAs } = document;
  for (const patch of patches) {
    switch (patch.action) {
      case 'replace':
        publicKeys = patch.document.publicKeys ?? [];
        services = patch.document.services ?? [];
        alsoKnownAs = [];
        break;
      case 'add-public-keys':
        publicKeys = upsertById(publicKeys, patch.publicKeys);
        break;
      case 'remove-public-keys':
        publicKeys = removeById(publicKeys, patch.ids);
        break;
      case 'add-services':
        services = upsertById(services, patch.services);
        break;
      case 'remove-services':
        services = removeById(services, patch.ids);
        break;
      case 'add-also-known-as': {
        const present = new Set(alsoKnownAs);
        alsoKnownAs = [...alsoKnownAs, ...patch.uris.filter((uri) => !present.has(uri))];
        break;
      }
      case 'remove-also-known-as': {
        const removed = new Set(patch.uris);
        alsoKnownAs = alsoKnownAs.filter((uri) => !removed.has(uri));
        break;
      }
    }
  }
  return { publicKeys, services, alsoKnownAs };
}

function upsertById<T extends PublicKeyEntry | ServiceEntry>(existing: readonly T[], additions: readonly T[]): T[] {
  const result = [...existing];
  const indexOf = new Map(result.map((entry, index) => [entry.id, index]));
  for (const entry of additions) {
    const index = indexOf.get(entry.id);
    if (index === undefined) {
      indexOf.set(entry.id, result.length);
      result.push(entry);
    } else {
      result[index] = entry;
    }
  }
  return result;
}

function removeById<T extends { id: string }>(existing: readonly T[], ids: readonly string[]): T[] {
  const removed = new Set(ids);
  return existing.filter((entry) => !removed.has(entry.id));
}
