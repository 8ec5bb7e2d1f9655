/**
 * A store's schema: its declared indexes and expiry field, normalised and checked once at open.
 *
 * Every declared compound index [f1..fn] is materialised as its prefixes [f1], [f1,f2], ... [f1..fn]. A
 * query with equality on f1..fk and a range or sort on f(k+1) then reads prefix k+1 in (value, key) order,
 * and one with equality on f1..fk alone reads prefix k in key order: both the order the contract promises,
 * straight off the index, never sorted in memory.
 */
import { badRequest } from '../errors/index.js';
import { RESERVED_FIELD } from './records.js';
import type { IndexSpec, StoreOptions } from './types.js';

/** One materialised index: an ordered list of fields. */
export interface IndexDef {
  readonly id: string;
  readonly fields: readonly string[];
}

export interface StoreSchema {
  /** Declared indexes (as given, normalised to arrays), kept to explain rejected queries. */
  readonly declared: readonly (readonly string[])[];
  /** Materialised prefix indexes by id. */
  readonly indexes: ReadonlyMap<string, IndexDef>;
  /** Every field that appears in some index. */
  readonly indexedFields: readonly string[];
  readonly expiryField: string | undefined;
}

/** Separator of field names in an index id; a control character no field name may contain. */
const ID_SEPARATOR = '\u001f';

export const indexId = (fields: readonly string[]): string => fields.join(ID_SEPARATOR);

function checkFieldName(field: unknown, store: string): asserts field is string {
  if (typeof field !== 'string' || field.length === 0) throw badRequest(`store ${store}: index field names must be non-empty strings`);
  // MongoDB reads "." as a path and "$" as an operator; refusing them everywhere keeps adapters equivalent.
  if (field.includes('.') || field.startsWith('$') || field.includes(ID_SEPARATOR) || field === RESERVED_FIELD) {
    throw badRequest(`store ${store}: "${field}" cannot be indexed (no ".", no leading "$", not "${RESERVED_FIELD}")`);
  }
}

function normaliseSpec(spec: IndexSpec, store: string): string[] {
  const fields = typeof spec === 'string' ? [spec] : [...spec];
  if (fields.length === 0) throw badRequest(`store ${store}: an index needs at least one field`);
  for (const f of fields) checkFieldName(f, store);
  if (new Set(fields).size !== fields.length) throw badRequest(`store ${store}: index [${fields.join(', ')}] repeats a field`);
  return fields;
}

export function buildSchema(store: string, options: StoreOptions = {}, previous?: StoreSchema): StoreSchema {
  if (options.expiryField !== undefined) checkFieldName(options.expiryField, store);
  if (previous && options.expiryField !== undefined && previous.expiryField !== undefined && previous.expiryField !== options.expiryField) {
    throw badRequest(`store ${store}: opened with expiry field "${options.expiryField}" but already open with "${previous.expiryField}"`);
  }
  const declared: string[][] = previous ? previous.declared.map((d) => [...d]) : [];
  for (const spec of options.indexes ?? []) {
    const fields = normaliseSpec(spec, store);
    if (!declared.some((d) => indexId(d) === indexId(fields))) declared.push(fields);
  }
  const indexes = new Map<string, IndexDef>();
  const indexedFields = new Set<string>();
  for (const fields of declared) {
    for (let n = 1; n <= fields.length; n++) {
      const prefix = fields.slice(0, n);
      const id = indexId(prefix);
      if (!indexes.has(id)) indexes.set(id, { id, fields: prefix });
    }
    for (const f of fields) indexedFields.add(f);
  }
  return {
    declared,
    indexes,
    indexedFields: [...indexedFields],
    expiryField: options.expiryField ?? previous?.expiryField,
  };
}

export function describeIndexes(schema: StoreSchema): string {
  if (schema.declared.length === 0) return 'none';
  return schema.declared.map((d) => `[${d.join(', ')}]`).join(', ');
}
