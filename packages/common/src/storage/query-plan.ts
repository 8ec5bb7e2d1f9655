/**
 * Query validation and planning, shared by every adapter so that a query accepted (or rejected) by the mem
 * adapter in a unit test is accepted (or rejected) identically by LMDB and MongoDB in production.
 *
 * A query is answerable when some materialised index (see schema.ts) has the equality / `in` fields of the
 * query as its leading fields, followed by the range or sort field if there is one. Results come in
 * (tail value, key) order when there is a range or sort field, else in key order.
 */
import { badRequest } from '../errors/index.js';
import { base64UrlDecode, base64UrlEncode } from '../encoding/index.js';
import { type ValueType } from './key-codec.js';
import { isIndexValue } from './records.js';
import { describeIndexes, type IndexDef, type StoreSchema } from './schema.js';
import type { FieldCondition, IndexValue, Query, RangeCondition } from './types.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 10_000;
/** Most index ranges one query may expand to through `in` lists. */
export const MAX_IN_COMBINATIONS = 1_000;

export interface Bound {
  value: IndexValue;
  inclusive: boolean;
}

/** A range within one value type (ranges are type-bracketed, as in MongoDB). */
export interface TypedRange {
  type: ValueType;
  lower?: Bound;
  upper?: Bound;
}

export interface Cursor {
  key: string;
  /** The tail field's value of the last record returned (present when the plan has a tail). */
  value?: IndexValue;
}

export interface Tail {
  field: string;
  range?: TypedRange;
}

export interface ScanPlan {
  /** The index read, or undefined for a scan of all records in key order. */
  index?: IndexDef;
  /** Equality values of the index's leading fields; one entry per `in` combination. */
  prefixes: IndexValue[][];
  tail?: Tail;
  direction: 'asc' | 'desc';
  /** True when an empty `in` list makes the query match nothing. */
  empty: boolean;
}

export interface QueryPlan extends ScanPlan {
  limit: number;
  offset: number;
  after?: Cursor;
  /** Only keys starting with this (a scan of records in key order; never with an index). */
  keyPrefix?: string;
}

type Classified =
  { kind: 'eq'; values: IndexValue[] } | { kind: 'in'; values: IndexValue[] } | { kind: 'range'; range: TypedRange };

const RANGE_KEYS = new Set(['gt', 'gte', 'lt', 'lte']);

function valueType(v: IndexValue): ValueType {
  return typeof v as ValueType;
}

function classify(store: string, field: string, cond: FieldCondition): Classified {
  if (isIndexValue(cond)) return { kind: 'eq', values: [cond] };
  if (typeof cond !== 'object' || cond === null || Array.isArray(cond)) {
    throw badRequest(
      `store ${store}: condition on "${field}" must be a string, finite number, boolean, {in: [...]} or a range`,
    );
  }
  const keys = Object.keys(cond);
  if (keys.length === 1 && keys[0] === 'in') {
    const list = (cond as { in: unknown }).in;
    if (!Array.isArray(list) || !list.every(isIndexValue)) {
      throw badRequest(`store ${store}: "in" on "${field}" must be an array of strings, finite numbers or booleans`);
    }
    const seen = new Set<string>();
    const values = list.filter((v) => {
      const id = `${typeof v}:${String(v)}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    return { kind: 'in', values };
  }
  if (keys.length === 0 || !keys.every((k) => RANGE_KEYS.has(k))) {
    throw badRequest(
      `store ${store}: condition on "${field}" has unknown operators (${keys.join(', ')}); use in, gt, gte, lt, lte`,
    );
  }
  const r = cond as RangeCondition;
  if (r.gt !== undefined && r.gte !== undefined)
    throw badRequest(`store ${store}: range on "${field}" has both gt and gte`);
  if (r.lt !== undefined && r.lte !== undefined)
    throw badRequest(`store ${store}: range on "${field}" has both lt and lte`);
  const lowerValue = r.gt ?? r.gte;
  const upperValue = r.lt ?? r.lte;
  const bounds = [lowerValue, upperValue].filter((v) => v !== undefined);
  if (bounds.length === 0) throw badRequest(`store ${store}: range on "${field}" has no bound`);
  if (!bounds.every(isIndexValue))
    throw badRequest(`store ${store}: range bounds on "${field}" must be strings, finite numbers or booleans`);
  const type = valueType(bounds[0]!);
  if (!bounds.every((b) => valueType(b) === type)) {
    throw badRequest(
      `store ${store}: range bounds on "${field}" must have one type (ranges only match values of their bounds' type)`,
    );
  }
  const range: TypedRange = { type };
  if (lowerValue !== undefined) range.lower = { value: lowerValue, inclusive: r.gte !== undefined };
  if (upperValue !== undefined) range.upper = { value: upperValue, inclusive: r.lte !== undefined };
  return { kind: 'range', range };
}

function cartesian(lists: IndexValue[][]): IndexValue[][] {
  let out: IndexValue[][] = [[]];
  for (const list of lists) {
    const next: IndexValue[][] = [];
    for (const partial of out) for (const v of list) next.push([...partial, v]);
    out = next;
  }
  return out;
}

function sameSet(a: readonly string[], b: ReadonlySet<string>): boolean {
  return a.length === b.size && a.every((f) => b.has(f));
}

/** Picks the index that answers `where` + `orderBy`, or rejects the query with the reason. */
export function planScan(
  store: string,
  schema: StoreSchema,
  where: Query['where'],
  orderBy: Query['orderBy'],
): ScanPlan {
  if (where !== undefined && (typeof where !== 'object' || where === null || Array.isArray(where))) {
    throw badRequest(`store ${store}: "where" must be an object of field conditions`);
  }
  const direction = orderBy?.direction ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc')
    throw badRequest(`store ${store}: orderBy.direction must be "asc" or "desc"`);
  if (orderBy !== undefined && (typeof orderBy.field !== 'string' || orderBy.field.length === 0)) {
    throw badRequest(`store ${store}: orderBy.field must be a field name`);
  }

  const conditions = new Map<string, Classified>();
  for (const [field, cond] of Object.entries(where ?? {})) {
    if (cond === undefined) continue;
    if (!schema.indexedFields.includes(field)) {
      throw badRequest(`store ${store}: "${field}" is not an indexed field (indexes: ${describeIndexes(schema)})`);
    }
    conditions.set(field, classify(store, field, cond));
  }
  const equality = new Set([...conditions].filter(([, c]) => c.kind !== 'range').map(([f]) => f));
  const ranged = [...conditions].filter(([, c]) => c.kind === 'range').map(([f]) => f);
  if (ranged.length > 1)
    throw badRequest(`store ${store}: a query may have a range on one field only (got ${ranged.join(', ')})`);
  const rangeField = ranged[0];
  const sortField = orderBy?.field;
  if (sortField !== undefined && rangeField !== undefined && sortField !== rangeField) {
    throw badRequest(
      `store ${store}: with a range on "${rangeField}" the results can only be sorted by "${rangeField}"`,
    );
  }
  if (sortField !== undefined && conditions.get(sortField)?.kind === 'in') {
    throw badRequest(`store ${store}: cannot sort by "${sortField}", which has an "in" condition`);
  }
  if (sortField !== undefined && !schema.indexedFields.includes(sortField)) {
    throw badRequest(
      `store ${store}: cannot sort by "${sortField}": not an indexed field (indexes: ${describeIndexes(schema)})`,
    );
  }
  // Sorting by a field fixed by equality is sorting by key.
  const tailField = rangeField ?? (sortField !== undefined && !equality.has(sortField) ? sortField : undefined);
  const empty = [...conditions.values()].some((c) => c.kind === 'in' && c.values.length === 0);

  if (equality.size === 0 && tailField === undefined) return { prefixes: [[]], direction, empty };

  const width = equality.size + (tailField === undefined ? 0 : 1);
  const index = [...schema.indexes.values()].find(
    (def) =>
      def.fields.length === width &&
      sameSet(def.fields.slice(0, equality.size), equality) &&
      (tailField === undefined || def.fields[width - 1] === tailField),
  );
  if (!index) {
    const wanted = [...equality].join(', ');
    const tail = tailField === undefined ? '' : `, then "${tailField}"`;
    throw badRequest(
      `store ${store}: no index answers this query: it needs an index starting with [${wanted}] (any order)${tail}; indexes: ${describeIndexes(schema)}`,
    );
  }
  const eqLists = index.fields
    .slice(0, equality.size)
    .map((f) => (conditions.get(f) as { values: IndexValue[] }).values);
  const combinations = eqLists.reduce((n, l) => n * Math.max(1, l.length), 1);
  if (combinations > MAX_IN_COMBINATIONS) {
    throw badRequest(`store ${store}: "in" lists expand to ${combinations} index ranges (max ${MAX_IN_COMBINATIONS})`);
  }
  const prefixes = empty ? [] : cartesian(eqLists);
  const plan: ScanPlan = { index, prefixes, direction, empty };
  if (tailField !== undefined) {
    const tailCond = conditions.get(tailField);
    plan.tail = tailCond?.kind === 'range' ? { field: tailField, range: tailCond.range } : { field: tailField };
  }
  return plan;
}

export function planQuery(store: string, schema: StoreSchema, query: Query = {}): QueryPlan {
  if (typeof query !== 'object' || query === null) throw badRequest(`store ${store}: a query must be an object`);
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw badRequest(`store ${store}: limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  const offset = query.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw badRequest(`store ${store}: offset must be a non-negative integer`);
  const keyPrefix = query.keyPrefix;
  if (keyPrefix !== undefined) {
    if (typeof keyPrefix !== 'string') throw badRequest(`store ${store}: keyPrefix must be a string`);
    if (query.where !== undefined || query.orderBy !== undefined) {
      throw badRequest(
        `store ${store}: keyPrefix cannot be combined with where or orderBy (a key-prefix query reads records in key order)`,
      );
    }
  }
  const scan = planScan(store, schema, query.where, query.orderBy);
  const plan: QueryPlan = { ...scan, limit, offset };
  if (keyPrefix !== undefined) plan.keyPrefix = keyPrefix;
  if (query.after !== undefined) plan.after = decodeCursor(store, query.after, scan.tail !== undefined);
  return plan;
}

export function encodeCursor(cursor: Cursor): string {
  const parts: unknown[] = cursor.value === undefined ? [cursor.key] : [cursor.key, cursor.value];
  return base64UrlEncode(Buffer.from(JSON.stringify(parts), 'utf8'));
}

export function decodeCursor(store: string, text: unknown, withValue: boolean): Cursor {
  const invalid = () =>
    badRequest(`store ${store}: invalid "after" cursor (pass the "next" of a page of the same query)`);
  if (typeof text !== 'string' || text.length === 0 || text.length > 8192) throw invalid();
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(base64UrlDecode(text)).toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parts) || typeof parts[0] !== 'string' || parts.length !== (withValue ? 2 : 1)) throw invalid();
  if (!withValue) return { key: parts[0] };
  if (!isIndexValue(parts[1])) throw invalid();
  return { key: parts[0], value: parts[1] };
}
