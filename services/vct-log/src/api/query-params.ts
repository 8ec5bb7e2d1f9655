import { badRequest } from '@anchor/common/errors';

/** Query parameters (URLSearchParams): a value or null when absent; the kit refused any given twice. */
export interface QueryParams {
  get(name: string): string | null;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/**
 * A query parameter read as trustbloc/vct reads it (`strconv.ParseInt(q.Get(name), 10, 64)`): an optional
 * sign and decimal digits within int64; anything else (missing, empty, `1e3`, ` 5`, `0x10`, beyond int64)
 * is 400 `validation failed: parameter "<name>" is not a number`.
 *
 * Returned as a bigint so validation messages echo the value exactly; callers compare it with tree sizes,
 * which are far below 2^53.
 */
export function int64Param(query: QueryParams, name: string): bigint {
  const raw = query.get(name);
  if (raw === null || !/^[+-]?\d{1,19}$/.test(raw)) throw notANumber(name);
  const value = BigInt(raw);
  if (value > INT64_MAX || value < INT64_MIN) throw notANumber(name);
  return value;
}

function notANumber(name: string) {
  return badRequest(`validation failed: parameter ${JSON.stringify(name)} is not a number`);
}
