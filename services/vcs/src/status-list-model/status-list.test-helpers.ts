import { expect } from 'vitest';
import { AppError } from '@anchor/common/errors';

/** The 400 `action` throws: its message and the spec's error name (`details.statusError`); fails the test otherwise. */
export function statusListRefusal(action: () => unknown): { message: string; statusError?: unknown } {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
    return { message: (error as AppError).message, statusError: (error as AppError).details?.statusError };
  }
  throw new Error('expected a bad_request');
}
