import { badRequest, notFound, permanent, transient, unavailable } from '@anchor/common/errors';
import { describe, expect, it } from 'vitest';
import { deliveryOutcome, handlingOutcome } from './failure-outcomes.js';

const refusals = [badRequest('malformed'), notFound('no inbox'), permanent('peer 401')];
const passing = [transient('ECONNREFUSED'), unavailable('peer 503'), new Error('socket hang up')];

describe('deliveryOutcome', () => {
  it('a successful POST is delivered', () => {
    expect(deliveryOutcome(undefined, 1, 5)).toBe('delivered');
  });

  it('a refusal by the recipient (4xx, permanent) is dropped at once, on any attempt', () => {
    for (const refusal of refusals) {
      expect(deliveryOutcome(refusal, 1, 5)).toBe('dropped');
      expect(deliveryOutcome(refusal, 5, 5)).toBe('dropped');
    }
  });

  it('network errors and 5xx are retried until the last attempt, which dead-letters them', () => {
    for (const failure of passing) {
      expect(deliveryOutcome(failure, 1, 3)).toBe('retry');
      expect(deliveryOutcome(failure, 2, 3)).toBe('retry');
      expect(deliveryOutcome(failure, 3, 3)).toBe('dead');
    }
  });
});

describe('handlingOutcome', () => {
  it('a permanent failure refuses the activity for good; a retryable one is retried until the last attempt', () => {
    expect(handlingOutcome(undefined, false)).toBe('handled');
    for (const refusal of refusals) expect(handlingOutcome(refusal, false)).toBe('refused');
    for (const failure of passing) {
      expect(handlingOutcome(failure, false)).toBe('retry');
      expect(handlingOutcome(failure, true)).toBe('failed');
    }
  });
});
