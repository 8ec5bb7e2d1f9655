import { AppError } from '@anchor/common/errors';

/** The HTTP status an `AppError` thrown by `effect` maps to, or 'ok' when it throws nothing. */
export function statusOf(effect: () => unknown): number | 'ok' {
  try {
    effect();
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return error.status;
    throw error;
  }
}
