import { badRequest } from '@anchor/common/errors';

/**
 * A query parameter given at most once, as plain text, or undefined when absent. Repeating it (`?a=1&a=2`)
 * or sending a bracketed form (`?a[x]=1`, which express parses into an object) is a 400: which value was
 * meant cannot be told.
 */
export function singleQueryValue(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`query parameter '${name}' must be given once, as a plain value`);
  return value;
}
