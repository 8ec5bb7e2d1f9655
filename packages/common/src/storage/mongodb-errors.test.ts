import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoExpiredSessionError,
  MongoNetworkError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { AppError, conflict } from '../errors/index.js';
import {
  duplicateKeyIndex,
  isDuplicateKey,
  isTransientMongoError,
  LostPutRace,
  mapMongoError,
  retryLostPutRaces,
} from './mongodb-errors.js';
import { STORE_RETRY_AFTER_SECONDS } from './unavailable.js';

const serverError = (code: number, codeName: string, labels: string[] = []): MongoServerError =>
  new MongoServerError({ ok: 0, code, codeName, errmsg: `${codeName} happened`, errorLabels: labels });

// The driver's pool errors are not among its exports (the adapter knows them by name): taken from its module.
const { PoolClosedError, WaitQueueTimeoutError } = createRequire(import.meta.url)('mongodb/lib/cmap/errors.js') as {
  PoolClosedError: new (pool: { address: string }) => Error;
  WaitQueueTimeoutError: new (message: string, address: string) => Error;
};

function mapped(error: unknown): AppError {
  const result = mapMongoError(error, 'store s: get');
  expect(result).toBeInstanceOf(AppError);
  return result as AppError;
}

function expectUnavailable(error: unknown): void {
  const e = mapped(error);
  expect([e.code, e.status, e.retryable], String(error)).toEqual(['unavailable', 503, true]);
  expect(e.headers).toEqual({ 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
  expect(e.message).toMatch(/^mongodb unavailable \(store s: get\)/);
  expect(isTransientMongoError(error)).toBe(true);
}

/**
 * What Node gives a write to a socket whose peer has ended it (a database shutting down): the error the
 * driver awaits its drain with and lets out unwrapped.
 */
async function writeAfterPeerEnded(): Promise<Error> {
  const server = createServer((socket) => socket.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = createConnection((server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'end');
    const failed = once(socket, 'error');
    socket.write(Buffer.from('hello'));
    const [error] = (await failed) as [Error];
    socket.destroy();
    return error;
  } finally {
    server.close();
  }
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
    ])
      expectUnavailable(error);
  });

  it("maps FerretDB's answer to a command its shutdown interrupted to a retryable 503, and no other InternalError", () => {
    // As a FerretDB (v1.24, SQLite) being stopped answered a find of a batch's insert check.
    const interrupted = new MongoServerError({
      ok: 0,
      code: 1,
      codeName: 'InternalError',
      errmsg:
        '[msg_find.go:344 handler.handleMaxTimeMSError] [values.go:74 iterator.ConsumeValuesN[...]] [projection_iterator.go:60 common.(*projectionIterator).Next] [filter_iterator.go:52 common.(*filterIterator).Next] [query_iterator.go:79 sqlite.(*queryIterator).Next] context canceled after delay',
    });
    expectUnavailable(interrupted);
    const other = mapped(serverError(1, 'InternalError'));
    expect([other.code, other.status]).toEqual(['internal', 500]);
  });

  it('maps the socket error the driver lets out unwrapped when the server has ended the connection to a retryable 503', async () => {
    const error = await writeAfterPeerEnded();
    expect((error as NodeJS.ErrnoException).code).toBe('EPIPE');
    expectUnavailable(error);
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT'])
      expectUnavailable(Object.assign(new Error(`connect ${code} 127.0.0.1:27017`), { code }));
  });

  it('maps the errors of a client, pool or session closed under an operation (a replaced client) to a retryable 503', () => {
    const pool = { address: '127.0.0.1:27017' };
    for (const error of [
      new MongoClientClosedError(),
      new MongoServerClosedError(),
      new MongoExpiredSessionError(),
      new PoolClosedError(pool),
      new WaitQueueTimeoutError('Timed out while checking out a connection from connection pool', '127.0.0.1:27017'),
    ])
      expectUnavailable(error);
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

describe('retryLostPutRaces (a transaction whose put lost an upsert race)', () => {
  const lost = (): LostPutRace =>
    new LostPutRace(conflict('store s: key "k" already exists (batch aborted, nothing written)'));

  it('runs the transaction again until it no longer loses, and answers what the last run answers', async () => {
    let runs = 0;
    const answer = await retryLostPutRaces(3, async () => {
      runs++;
      if (runs < 3) throw lost();
      return 'committed';
    });
    expect(answer).toBe('committed');
    expect(runs).toBe(3);
  });

  it('answers 409 conflict, naming the key, when every run loses', async () => {
    let runs = 0;
    const error = await retryLostPutRaces(3, async () => {
      runs++;
      throw lost();
    }).catch((e: unknown) => e);
    expect(runs).toBe(3);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(409);
    expect((error as AppError).message).toContain('key "k"');
  });

  it('runs nothing again for any other failure', async () => {
    let runs = 0;
    const refusal = new Error('disk on fire');
    await expect(
      retryLostPutRaces(3, async () => {
        runs++;
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(runs).toBe(1);
  });
});
