/**
 * The one error the crypto core throws for bad input. The service maps `code` to a status; the message names
 * the field at fault and never carries key material, so it can be shown to the caller and logged as it is.
 * Anything else thrown from the core is a bug.
 */
export type KmsCryptoErrorCode = 'bad-input' | 'wrong-key-kind' | 'decrypt-failed' | 'unsupported';

export class KmsCryptoError extends Error {
  readonly code: KmsCryptoErrorCode;

  constructor(code: KmsCryptoErrorCode, message: string) {
    super(message);
    this.name = 'KmsCryptoError';
    this.code = code;
  }
}

export function badInput(message: string): KmsCryptoError {
  return new KmsCryptoError('bad-input', message);
}

export function wrongKeyKind(message: string): KmsCryptoError {
  return new KmsCryptoError('wrong-key-kind', message);
}

export function decryptFailed(message: string): KmsCryptoError {
  return new KmsCryptoError('decrypt-failed', message);
}

export function unsupported(message: string): KmsCryptoError {
  return new KmsCryptoError('unsupported', message);
}

export function isKmsCryptoError(error: unknown): error is KmsCryptoError {
  return error instanceof KmsCryptoError;
}
