import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { duplicateKeyIndex, isDuplicateKey, mapMongoError } from './mongodb-errors.js';

const serverError = (code: number, codeName: string, labels: string[] = []): MongoServerError =>
  new MongoServerError({ ok: 0, code, codeName, errmsg: `${codeName} happened`, errorLabels: labels });

function mapped(error: unknown): AppError {
  const result = mapMongoError(error, 'store s: get');
  expect(result).toBeInstanceOf(AppError);
  return result as AppError;
}

describe('MongoDB errors as AppErrors', () => {
  it('maps a lost connection, a failover, a timeout and a write conflict to a retryable 503', () => {
    for (const error of [
      new MongoNetworkError('connection 3 to 10.0.0.1:27017 closed'),
      new MongoServerSelectionError('Server selection timed out after 10000 ms', {
        type: 'Unknown',
        servers: new Map(),
        stale: false,
        compatible: true,
        heartbeatFrequencyMS: 10_000,
        localThresholdMS: 15,
        setName: null,
        maxElectionId: null,
        maxSetVersion: null,
        commonWireVersion: 0,
        logicalSessionTimeoutMinutes: null,
      } as never),
      serverError(10107, 'NotWritablePrimary'),
      serverError(189, 'PrimarySteppedDown'),
      serverError(11602, 'InterruptedDueToReplStateChange'),
      serverError(50, 'MaxTimeMSExpired'),
      serverError(112, 'WriteConflict'),
      serverError(1, 'Whatever', ['TransientTransactionError']),
      new MongoWriteConcernError({
        ok: 1,
        writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
      } as never),
    ]) {
      const e = mapped(error);
      expect([e.code, e.status, e.retryable], error.message).toEqual(['unavailable', 503, true]);
      expect(e.message).toMatch(/^mongodb unavailable \(store s: get\)/);
    }
  });

  it('maps a duplicate key to a 409 and finds the bulk operation that hit it', () => {
    const e = mapped(serverError(11000, 'DuplicateKey'));
    expect([e.code, e.status, e.retryable]).toEqual(['conflict', 409, false]);
    const bulk = new MongoBulkWriteError(
      {
        message: 'E11000',
        code: 11000,
        writeErrors: [{ index: 3, code: 11000, errmsg: 'E11000 duplicate key' }] as never,
      },
      {} as never,
    );
    expect(isDuplicateKey(bulk)).toBe(true);
    expect(duplicateKeyIndex(bulk)).toBe(3);
    expect(isDuplicateKey(serverError(2, 'BadValue'))).toBe(false);
  });

  it('names anything else the server refuses, with its code, as an internal error; passes other errors through', () => {
    const e = mapped(serverError(2, 'BadValue'));
    expect([e.code, e.status]).toEqual(['internal', 500]);
    expect(e.message).toBe('mongodb refused store s: get: BadValue (code 2): BadValue happened');
    expect(mapped(serverError(10334, 'BSONObjectTooLarge')).status).toBe(413);
    const bug = new TypeError('x is undefined');
    expect(mapMongoError(bug, 'w')).toBe(bug);
  });
});
