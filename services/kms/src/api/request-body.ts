import { base64UrlPaddedDecode } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';

/** Bytes from a padded base64url field (the original's encoding of every binary field), or 400 naming the field. */
export function bytesOf(value: string, field: string): Buffer {
  try {
    return base64UrlPaddedDecode(value);
  } catch {
    throw badRequest(`${field}: not base64url with padding`);
  }
}

/** Optional bytes: empty when absent. */
export function optionalBytesOf(value: string | undefined, field: string): Buffer {
  return value === undefined ? Buffer.alloc(0) : bytesOf(value, field);
}

/** Every bytes field of a list (BBS messages), 400 naming the index. */
export function bytesListOf(values: readonly string[], field: string): Buffer[] {
  return values.map((value, index) => bytesOf(value, `${field}[${index}]`));
}
