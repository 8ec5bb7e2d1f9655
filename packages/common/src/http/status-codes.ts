import type { ErrorCode } from '../errors/index.js';

const CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'too_many_requests',
  500: 'internal',
  501: 'not_implemented',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'timeout',
};

/** The AppError code for an HTTP status; statuses without a code of their own fall back to their class. */
export function errorCodeForStatus(status: number): ErrorCode {
  return CODES[status] ?? (status >= 500 ? 'internal' : 'bad_request');
}
