/**
 * Consistency check of the mem and LMDB adapters' derived data: every index and expiry entry must be
 * exactly the set the records produce, with the right expiry, and the store meta must match its schema.
 * Used by the crash tests and usable by operators (`checkIntegrity(provider)` after an incident).
 */
import { badRequest } from '../errors/index.js';
import { allExpiryEntries, allIndexEntries, allRecords, entriesOf, keyOfRecordKey } from './kv-layout.js';
import { KvStoreProvider } from './kv-provider.js';
import type { KvStore } from './kv-store.js';
import { decodeRecord } from './records.js';
import type { StoreProvider } from './types.js';

export interface IntegrityReport {
  /** Stores checked, with their record counts. */
  stores: Record<string, { records: number; entries: number }>;
  /** Human-readable problems; empty when consistent. */
  problems: string[];
}

export function checkStoreIntegrity(store: KvStore<object>, problems: string[]): { records: number; entries: number } {
  const expected = new Map<string, string>();
  let records = 0;
  if (!store.builtFor(store.schema)) problems.push(`${store.name}: meta does not match the open schema`);
  for (const e of store.space.scan(allRecords())) {
    records++;
    let record: object;
    try {
      record = decodeRecord<object>(e.value);
    } catch {
      problems.push(`${store.name}: record ${JSON.stringify(keyOfRecordKey(e.key))} is not valid JSON`);
      continue;
    }
    for (const d of entriesOf(store.name, store.schema, keyOfRecordKey(e.key), record))
      expected.set(d.key.toString('latin1'), d.value);
  }
  let entries = 0;
  for (const range of [allIndexEntries(), allExpiryEntries()]) {
    for (const e of store.space.scan(range)) {
      entries++;
      const k = e.key.toString('latin1');
      const want = expected.get(k);
      if (want === undefined) problems.push(`${store.name}: stray derived entry ${e.key.toString('hex')}`);
      else if (want !== e.value)
        problems.push(
          `${store.name}: derived entry ${e.key.toString('hex')} holds expiry "${e.value}", record says "${want}"`,
        );
      expected.delete(k);
    }
  }
  for (const k of expected.keys())
    problems.push(`${store.name}: missing derived entry ${Buffer.from(k, 'latin1').toString('hex')}`);
  return { records, entries };
}

export async function checkIntegrity(provider: StoreProvider): Promise<IntegrityReport> {
  if (!(provider instanceof KvStoreProvider))
    throw badRequest(`integrity checks apply to mem and lmdb storage, not ${provider.kind}`);
  return provider.checkIntegrity(checkStoreIntegrity);
}
