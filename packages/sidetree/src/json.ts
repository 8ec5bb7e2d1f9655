import { badRequest } from '@anchor/common/errors';

/**
 * Small shape checks for parsed JSON. Every failure is an AppError bad_request whose message names the
 * member by its path (e.g. `suffixData.deltaHash`), so a client learns exactly what to fix.
 */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, path: string): JsonObject {
  if (value === undefined) throw badRequest(`${path} is missing`);
  if (!isJsonObject(value)) throw badRequest(`${path} must be a JSON object`);
  return value;
}

export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`${path} must be a string`);
  return value;
}

/** Unix seconds as Orb reads them (int64): integers only; `undefined` when absent. */
export function optionalUnixSeconds(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw badRequest(`${path} must be an integer (Unix seconds)`);
  return value;
}

/** Rejects members outside `allowed`: the ingest (spec / ION) stance on unknown members. */
export function rejectUnknownMembers(object: JsonObject, allowed: ReadonlySet<string>, path: string): void {
  for (const member of Object.keys(object)) {
    if (!allowed.has(member)) throw badRequest(`${path} has unknown member '${member}'`);
  }
}
