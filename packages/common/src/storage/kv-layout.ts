/**
 * How a store is laid out in its ordered key space (one LMDB named database, or one in-memory map):
 *
 *   00 "meta"                                   -> JSON {format, indexes, expiryField}
 *   01 utf8(key)                                -> record JSON
 *   02 str(indexId) val(f1) .. val(fn) str(key) -> expiry ms of the record ("" when none)
 *   03 num(expiry) str(key)                     -> ""
 *
 * Index entries carry the record's expiry so queries and counts can skip expired records without reading
 * them; the expiry entries let the sweeper find what to delete without a full scan.
 */
import { afterPrefix, KeyBuilder, readString, readValue } from './key-codec.js';
import { isIndexValue, MAX_INDEX_ENTRY_BYTES } from './records.js';
import { badRequest } from '../errors/index.js';
import type { KvRange } from './ordered-kv.js';
import type { IndexDef, StoreSchema } from './schema.js';
import type { IndexValue } from './types.js';

export const META_KEY = Buffer.from([0x00, ...Buffer.from('meta')]);
export const RECORD_PREFIX = Buffer.from([0x01]);
export const INDEX_PREFIX = Buffer.from([0x02]);
export const EXPIRY_PREFIX = Buffer.from([0x03]);
export const LAYOUT_FORMAT = 1;

export interface StoreMeta {
  format: number;
  indexes: string[];
  expiryField: string | null;
}

export function recordKey(key: string): Buffer {
  const len = Buffer.byteLength(key, 'utf8');
  const out = Buffer.allocUnsafe(len + 1);
  out[0] = 0x01;
  out.write(key, 1, 'utf8');
  return out;
}

export function keyOfRecordKey(k: Buffer): string {
  return k.toString('utf8', 1);
}

export function indexPrefix(index: IndexDef, values: readonly IndexValue[]): Buffer {
  const b = new KeyBuilder(64).byte(0x02).string(index.id);
  for (const v of values) b.value(v);
  return b.build();
}

export function wholeIndexRange(index: IndexDef): KvRange {
  const prefix = new KeyBuilder(32).byte(0x02).string(index.id).build();
  return prefixRange(prefix);
}

export function prefixRange(prefix: Buffer, reverse = false): KvRange {
  return { low: prefix, lowInclusive: true, high: afterPrefix(prefix), highInclusive: false, reverse };
}

export const allRecords = (reverse = false): KvRange => ({
  low: RECORD_PREFIX,
  lowInclusive: true,
  high: INDEX_PREFIX,
  highInclusive: false,
  reverse,
});

export const allIndexEntries = (): KvRange => ({
  low: INDEX_PREFIX,
  lowInclusive: true,
  high: EXPIRY_PREFIX,
  highInclusive: false,
  reverse: false,
});

export const allExpiryEntries = (): KvRange => prefixRange(EXPIRY_PREFIX);

/** Expiry entries of records expiring at or before `now`. */
export function expiredUpTo(now: number): KvRange {
  return {
    low: EXPIRY_PREFIX,
    lowInclusive: true,
    high: afterPrefix(new KeyBuilder(16).byte(0x03).number(now).build()),
    highInclusive: false,
    reverse: false,
  };
}

export function expiryEntryKey(expiry: number, key: string): Buffer {
  return new KeyBuilder(16 + key.length * 3).byte(0x03).number(expiry).string(key).build();
}

export function keyOfExpiryEntry(k: Buffer): string {
  return readString(k, 9 + 1).value;
}

/** Reused for every derived key (build() copies the bytes out), saving an allocation per entry. */
const scratch = new KeyBuilder(256);

export interface DerivedEntry {
  key: Buffer;
  value: string;
}

/**
 * The index and expiry entries a record owns. Throws (before anything is written) when an indexed value
 * makes an entry too long to be a key.
 */
export function entriesOf(store: string, schema: StoreSchema, key: string, record: object): DerivedEntry[] {
  const fields = record as Record<string, unknown>;
  const expiry = schema.expiryField === undefined ? undefined : fields[schema.expiryField];
  if (expiry !== undefined && (typeof expiry !== 'number' || !Number.isFinite(expiry))) {
    throw badRequest(
      `store ${store}: record "${key}": expiry field "${schema.expiryField ?? ''}" must be a number of epoch milliseconds`,
    );
  }
  const expiryText = typeof expiry === 'number' ? String(expiry) : '';
  const out: DerivedEntry[] = [];
  const b = scratch;
  for (const index of schema.indexes.values()) {
    b.reset().byte(0x02).string(index.id);
    let complete = true;
    for (const f of index.fields) {
      const v = fields[f];
      if (v === undefined) {
        complete = false;
        break;
      }
      if (!isIndexValue(v)) {
        throw badRequest(
          `store ${store}: record "${key}": indexed field "${f}" must be a string, a finite number or a boolean (or absent)`,
        );
      }
      b.value(v);
    }
    if (!complete) continue;
    b.string(key);
    if (b.length > MAX_INDEX_ENTRY_BYTES) {
      throw badRequest(
        `store ${store}: indexed values of [${index.fields.join(', ')}] are too long (index entry over ${MAX_INDEX_ENTRY_BYTES} bytes)`,
      );
    }
    out.push({ key: b.build(), value: expiryText });
  }
  if (typeof expiry === 'number') out.push({ key: expiryEntryKey(expiry, key), value: '' });
  return out;
}

/** Decodes an index entry key: the tail value (at `valueOffset`, if the scan has a tail) and the record key. */
export function decodeIndexEntry(
  k: Buffer,
  valueOffset: number,
  hasTail: boolean,
): { value?: IndexValue; key: string } {
  if (!hasTail) return { key: readString(k, valueOffset).value };
  const tail = readValue(k, valueOffset);
  return { value: tail.value, key: readString(k, tail.end).value };
}
