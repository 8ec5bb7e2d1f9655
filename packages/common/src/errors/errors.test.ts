import { describe, expect, it } from 'vitest';
import { AppError, badRequest, isRetryable, permanent, statusOf, transient } from './index.js';

describe('AppError', () => {
  it('maps codes to statuses and defaults retryability by status class', () => {
    expect(badRequest('x').status).toBe(400);
    expect(badRequest('x').retryable).toBe(false);
    expect(new AppError('unavailable', 'down').retryable).toBe(true);
    expect(statusOf(new Error('boom'))).toBe(500);
  });

  it('classifies transient and permanent failures for queue consumers', () => {
    expect(isRetryable(transient('peer 503'))).toBe(true);
    expect(isRetryable(permanent('peer 404'))).toBe(false);
    expect(isRetryable(new TypeError('unexpected'))).toBe(true);
  });
});
