/**
 * The rules every adapter applies to keys and values before anything is written, so that bad input fails
 * the same way on mem, LMDB and MongoDB and nothing half-valid ever reaches a database.
 *
 * A value is stored as its JSON form: what `JSON.stringify` keeps is what a later read returns.
 */
import { badRequest } from '../errors/index.js';
import type { IndexValue } from './types.js';

/** Longest record key, in UTF-8 bytes (keeps every index entry under LMDB's 1,978-byte key limit). */
export const MAX_KEY_BYTES = 1024;
/** Largest stored record: MongoDB's document limit, applied everywhere so no adapter accepts more. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;
/** Longest encoded index entry (LMDB's maximum key size). */
export const MAX_INDEX_ENTRY_BYTES = 1978;
/** Top-level field reserved for the record key by the MongoDB adapter. */
export const RESERVED_FIELD = '_id';

export function checkKey(key: unknown, store: string): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) {
    throw badRequest(`store ${store}: a key must be a non-empty string`);
  }
  if (key.length * 3 > MAX_KEY_BYTES && Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
    throw badRequest(`store ${store}: key longer than ${MAX_KEY_BYTES} bytes`);
  }
}

/** A compare-and-set condition: at least one top-level field, each with a string, finite number or boolean. */
export function checkWhere(where: unknown, store: string): asserts where is Readonly<Record<string, IndexValue>> {
  if (typeof where !== 'object' || where === null || Array.isArray(where))
    throw badRequest(`store ${store}: replaceIf takes an object of field values`);
  const fields = Object.entries(where);
  if (fields.length === 0) throw badRequest(`store ${store}: replaceIf needs at least one field to compare`);
  for (const [field, value] of fields) {
    if (field === RESERVED_FIELD) throw badRequest(`store ${store}: replaceIf cannot compare ${RESERVED_FIELD}`);
    if (!isIndexValue(value))
      throw badRequest(`store ${store}: replaceIf compares '${field}' with a string, finite number or boolean only`);
  }
}

export function isIndexValue(v: unknown): v is IndexValue {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** Serialises a record, rejecting what is not a JSON object or what cannot be indexed. */
export function encodeRecord(
  value: unknown,
  store: string,
  indexedFields: readonly string[],
  expiryField?: string,
): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`store ${store}: a value must be a JSON object`);
  }
  const record = value as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(record, RESERVED_FIELD)) {
    throw badRequest(`store ${store}: the top-level field "${RESERVED_FIELD}" is reserved`);
  }
  for (const field of indexedFields) {
    const v = record[field];
    if (v !== undefined && !isIndexValue(v)) {
      throw badRequest(
        `store ${store}: indexed field "${field}" must be a string, a finite number or a boolean (or absent)`,
      );
    }
  }
  if (expiryField !== undefined) {
    const v = record[expiryField];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) {
      throw badRequest(
        `store ${store}: expiry field "${expiryField}" must be a number of epoch milliseconds (or absent)`,
      );
    }
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(record);
  } catch (error) {
    throw badRequest(`store ${store}: value is not JSON-serialisable (${(error as Error).message})`);
  }
  if (json === undefined) throw badRequest(`store ${store}: value is not JSON-serialisable`);
  if (json.length > MAX_RECORD_BYTES / 3 && Buffer.byteLength(json, 'utf8') > MAX_RECORD_BYTES) {
    throw badRequest(`store ${store}: value larger than ${MAX_RECORD_BYTES} bytes`);
  }
  return json;
}

export function decodeRecord<T>(json: string): T {
  return JSON.parse(json) as T;
}

/** Epoch ms at which the record expires, or undefined if it never does. */
export function expiryOf(record: object, expiryField: string | undefined): number | undefined {
  if (expiryField === undefined) return undefined;
  const v = (record as Record<string, unknown>)[expiryField];
  return typeof v === 'number' ? v : undefined;
}

export function isExpired(expiry: number | undefined, now: number): boolean {
  return expiry !== undefined && expiry <= now;
}
