import { badRequest } from '@anchor/common/errors';

/** Key and service ids: 1 to 50 characters of the base64url alphabet (spec, ION and Go agree). */
export const MAX_ID_LENGTH = 50;
const ID_CHARACTERS = /^[A-Za-z0-9_-]+$/;

export function checkId(value: unknown, what: string): string {
  if (typeof value !== 'string') throw badRequest(`${what} id must be a string`);
  if (value.length === 0) throw badRequest(`${what} id must not be empty`);
  if (value.length > MAX_ID_LENGTH)
    throw badRequest(`${what} id '${value}' is too long: ${value.length} characters exceeds ${MAX_ID_LENGTH}`);
  if (!ID_CHARACTERS.test(value)) throw badRequest(`${what} id '${value}' contains characters outside [A-Za-z0-9_-]`);
  return value;
}

/** A non-empty list of valid ids (remove-public-keys, remove-services). */
export function checkIdList(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw badRequest('ids must be an array');
  if (value.length === 0) throw badRequest('ids must not be empty');
  return value.map((id) => checkId(id, what));
}
