/**
 * A store's schema: its declared indexes and expiry field, normalised and checked once at open.
 *
 * Every declared compound index [f1..fn] is materialised as its prefixes [f1], [f1,f2], ... [f1..fn]. A
 * query with equality on f1..fk and a range or sort on f(k+1) then reads prefix k+1 in (value, key) order,
 * and one with equality on f1..fk alone reads prefix k in key order: both the order the contract promises,
 * straight off the index, never sorted in memory. A `sortedOnly` index is materialised as [f1..fn] alone:
 * it answers equality on f1..f(n-1) with a range or sort on fn, and equality on all n fields.
 */
import { badRequest } from '../errors/index.js';
import { RESERVED_FIELD } from './records.js';
import type { IndexSpec, StoreOptions } from './types.js';

/** One materialised index: an ordered list of fields. */
export interface IndexDef {
  readonly id: string;
  readonly fields: readonly string[];
}

export interface DeclaredIndex {
  readonly fields: readonly string[];
  readonly sortedOnly: boolean;
}

export interface StoreSchema {
  /** Declared indexes (as given, normalised), kept to explain rejected queries. */
  readonly declared: readonly DeclaredIndex[];
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
  if (typeof field !== 'string' || field.length === 0)
    throw badRequest(`store ${store}: index field names must be non-empty strings`);
  // MongoDB reads "." as a path and "$" as an operator; refusing them everywhere keeps adapters equivalent.
  if (field.includes('.') || field.startsWith('$') || field.includes(ID_SEPARATOR) || field === RESERVED_FIELD) {
    throw badRequest(`store ${store}: "${field}" cannot be indexed (no ".", no leading "$", not "${RESERVED_FIELD}")`);
  }
}

function normaliseSpec(spec: IndexSpec, store: string): DeclaredIndex {
  const sortedOnly =
    typeof spec === 'object' && !Array.isArray(spec) && (spec as { sortedOnly?: unknown }).sortedOnly === true;
  const given: unknown =
    typeof spec === 'string' ? [spec] : Array.isArray(spec) ? spec : (spec as { fields?: unknown } | null)?.fields;
  if (!Array.isArray(given))
    throw badRequest(
      `store ${store}: an index is a field name, an array of field names or { fields, sortedOnly: true }`,
    );
  const fields = [...(given as unknown[])] as string[];
  if (fields.length === 0) throw badRequest(`store ${store}: an index needs at least one field`);
  for (const f of fields) checkFieldName(f, store);
  if (new Set(fields).size !== fields.length)
    throw badRequest(`store ${store}: index [${fields.join(', ')}] repeats a field`);
  if (sortedOnly && fields.length < 2) throw badRequest(`store ${store}: a sortedOnly index needs at least two fields`);
  return { fields, sortedOnly };
}

export function buildSchema(store: string, options: StoreOptions = {}, previous?: StoreSchema): StoreSchema {
  if (options.expiryField !== undefined) checkFieldName(options.expiryField, store);
  if (
    previous &&
    options.expiryField !== undefined &&
    previous.expiryField !== undefined &&
    previous.expiryField !== options.expiryField
  ) {
    throw badRequest(
      `store ${store}: opened with expiry field "${options.expiryField}" but already open with "${previous.expiryField}"`,
    );
  }
  const declared: DeclaredIndex[] = previous ? [...previous.declared] : [];
  for (const spec of options.indexes ?? []) {
    const index = normaliseSpec(spec, store);
    const same = declared.findIndex((d) => indexId(d.fields) === indexId(index.fields));
    // Declared both ways, the index keeps its prefixes (the union of what the opens asked for).
    if (same < 0) declared.push(index);
    else if (declared[same]!.sortedOnly && !index.sortedOnly) declared[same] = index;
  }
  const indexes = new Map<string, IndexDef>();
  const indexedFields = new Set<string>();
  for (const { fields, sortedOnly } of declared) {
    for (let n = sortedOnly ? fields.length : 1; n <= fields.length; n++) {
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
  return schema.declared.map((d) => `[${d.fields.join(', ')}]${d.sortedOnly ? ' (sorted only)' : ''}`).join(', ');
}
