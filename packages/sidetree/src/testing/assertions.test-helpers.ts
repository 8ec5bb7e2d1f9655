import { AppError } from '@anchor/common/errors';
import { expect } from 'vitest';

/** Asserts that `action` throws an AppError bad_request whose message contains `message`. */
export function expectBadRequest(action: () => unknown, message: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a bad_request containing: ${message}`).toBeInstanceOf(AppError);
  expect((thrown as AppError).code).toBe('bad_request');
  expect((thrown as AppError).message).toContain(message);
}

/** Asserts that `action` throws an AppError not_found whose message contains `message`. */
export function expectNotFound(action: () => unknown, message: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(AppError);
  expect((thrown as AppError).code).toBe('not_found');
  expect((thrown as AppError).message).toContain(message);
}
