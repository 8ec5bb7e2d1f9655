/**
 * Small helpers shared by the adapter contract suites.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { AppError, type ErrorCode } from '@anchor/common/errors';

/** A name unique to this run, so suites sharing a broker or a database never collide. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/** Asserts that `action` rejects (or throws) an AppError with `code`, whose message contains `text` if given. */
export async function expectAppError(
  action: Promise<unknown> | (() => unknown),
  code: ErrorCode,
  text?: string | RegExp,
): Promise<AppError> {
  let caught: unknown;
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected an AppError "${code}"`).toBeInstanceOf(AppError);
  const error = caught as AppError;
  expect(error.code, error.message).toBe(code);
  if (text !== undefined) expect(error.message).toMatch(text);
  return error;
}

/** Resolves when `predicate` holds, polling; fails with `what` after `timeoutMs`. */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  stepMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
