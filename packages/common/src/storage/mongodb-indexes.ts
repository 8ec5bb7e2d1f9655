/**
 * A store's MongoDB indexes follow its declaration at open: one per materialised index prefix, each ending in
 * `_id` (so key-order and (value, key)-order reads are index scans), plus one on the expiry field. An index the
 * store no longer declares is dropped (every index is written on every insert), and one whose definition
 * changed under the same name is rebuilt; each with a log line. Within a process the indexes of all opens of
 * a store are unioned (schema.ts), so two modules declaring different indexes on one store do not fight.
 */
import type { Collection, Document } from 'mongodb';
import { getLogger } from '../log/index.js';
import type { StoreSchema } from './schema.js';

const log = getLogger('mongodb-storage');

/** Options that change what an index holds or how it is used: an index carrying one is not ours as declared. */
const SHAPING_OPTIONS = [
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'collation',
  'hidden',
  'weights',
  'wildcardProjection',
];
const INDEX_NOT_FOUND = 27;

export interface IndexSpec {
  name: string;
  key: Record<string, 1>;
}

function specOf(fields: readonly string[]): IndexSpec {
  return { name: fields.map((f) => `${f}_1`).join('_'), key: Object.fromEntries(fields.map((f) => [f, 1 as const])) };
}

export function indexSpecsOf(schema: StoreSchema): IndexSpec[] {
  const specs = [...schema.indexes.values()].map((def) => specOf([...def.fields, '_id']));
  if (schema.expiryField !== undefined && !specs.some((s) => s.name === specOf([schema.expiryField!]).name))
    specs.push(specOf([schema.expiryField]));
  return specs;
}

function sameIndex(existing: Document, wanted: IndexSpec): boolean {
  const key = existing['key'] as Record<string, unknown> | undefined;
  if (JSON.stringify(Object.entries(key ?? {})) !== JSON.stringify(Object.entries(wanted.key))) return false;
  return SHAPING_OPTIONS.every((option) => existing[option] === undefined || existing[option] === false);
}

/** Drops what is stale, rebuilds what changed, creates what is missing; returns the names dropped and built. */
export async function reconcileIndexes(
  collection: Collection<never>,
  store: string,
  wanted: readonly IndexSpec[],
): Promise<{ dropped: string[]; created: string[] }> {
  const existing = await collection
    .listIndexes()
    .toArray()
    .catch((error: unknown) => {
      // A collection that does not exist yet has no indexes to reconcile.
      if ((error as { code?: unknown }).code === 26 /* NamespaceNotFound */) return [] as Document[];
      throw error;
    });
  const byName = new Map(wanted.map((w) => [w.name, w]));
  const dropped: string[] = [];
  for (const index of existing) {
    const name = index['name'] as string;
    if (name === '_id_') continue;
    const want = byName.get(name);
    if (want && sameIndex(index, want)) {
      byName.delete(name);
      continue;
    }
    if (want)
      log.warn('rebuilding an index whose definition changed', {
        store,
        collection: collection.collectionName,
        index: name,
        was: index['key'],
        now: want.key,
      });
    else
      log.warn('dropping an index the store no longer declares', {
        store,
        collection: collection.collectionName,
        index: name,
        key: index['key'],
      });
    try {
      await collection.dropIndex(name);
    } catch (error) {
      if ((error as { code?: unknown }).code !== INDEX_NOT_FOUND) throw error;
    }
    dropped.push(name);
  }
  const missing = [...byName.values()];
  if (missing.length > 0) await collection.createIndexes(missing.map((m) => ({ name: m.name, key: m.key })));
  return { dropped, created: missing.map((m) => m.name) };
}
