import type { RequestHandler } from 'express';
import { badRequest } from '../errors/index.js';

/**
 * The one query rule of every route of every service: a parameter given twice (`?keyVersion=1&keyVersion=2`)
 * is a 400, never read as its first or last value, since which one the client meant cannot be told (and a
 * proxy or cache in between may read the other).
 */
export function checkQuery(search: string): void {
  if (search === '') return;
  const seen = new Set<string>();
  for (const name of new URLSearchParams(search).keys()) {
    if (seen.has(name)) throw badRequest(`query parameter '${name}' is given more than once`);
    seen.add(name);
  }
}

/** The query of a URL as sent (`/a?b=1` → `b=1`). */
export function searchOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt < 0 ? '' : url.slice(queryAt + 1);
}

/** `checkQuery` on express's side of the kit. */
export const queryRule: RequestHandler = (req, _res, next) => {
  checkQuery(searchOf(req.originalUrl));
  next();
};

/**
 * The one reader of a route's query parameter: its value, or undefined when absent. One given twice is a 400
 * (the query rule refuses it before any handler; this holds for any query a handler is given).
 */
export function queryValue(req: { readonly query: URLSearchParams }, name: string): string | undefined {
  const values = req.query.getAll(name);
  if (values.length > 1) throw badRequest(`query parameter '${name}' must be given once, as a plain value`);
  return values[0];
}
