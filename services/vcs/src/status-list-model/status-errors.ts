import { badRequest, type AppError } from '@anchor/common/errors';

/** The error names of the Bitstring Status List specification, carried in `details.statusError`. */
export type StatusListErrorCode =
  'STATUS_RETRIEVAL_ERROR' | 'STATUS_VERIFICATION_ERROR' | 'STATUS_LIST_LENGTH_ERROR' | 'RANGE_ERROR';

export function statusListError(code: StatusListErrorCode, message: string): AppError {
  return badRequest(message, { details: { statusError: code } });
}
