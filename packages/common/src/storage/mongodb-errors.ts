/**
 * MongoDB driver errors as the project's AppErrors, so no driver error leaves the adapter as a bare 500:
 * a lost connection, a replica-set election, a timeout or a write conflict is `unavailable` (503 with
 * Retry-After, retried by the queue); a duplicate key is `conflict` (409); a document over the server's limit
 * is 413; anything else the server refuses is an `internal` error that names the operation and the server's code.
 */
import {
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoExpiredSessionError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { AppError, conflict } from '../errors/index.js';
import { storeUnavailable } from './unavailable.js';

export const DUPLICATE_KEY = 11000;

/** Server codes of a failover, a shutdown, an unreachable member, a timeout or a write conflict: gone on a retry. */
const TRANSIENT_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  24, // LockTimeout
  46, // LockBusy
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed (wtimeout)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  112, // WriteConflict
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  251, // NoSuchTransaction
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);
// ResetPool and PoolRequestedRetry mark a connection lost under an operation (a bulk write wraps the network
// error and keeps only its labels).
const TRANSIENT_LABELS = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.TransientTransactionError,
  MongoErrorLabel.UnknownTransactionCommitResult,
  MongoErrorLabel.RetryableError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.SystemOverloadedError,
];
/**
 * Errors of a client, pool or server the adapter closed under operations in flight (it replaces a client whose
 * monitor is stuck), and of a pool with no connection to lend in time; the pool's classes are not exported.
 */
const CLOSED_UNDER_OPERATION = [MongoClientClosedError, MongoServerClosedError, MongoExpiredSessionError];
const CLOSED_UNDER_OPERATION_NAMES = new Set(['MongoPoolClosedError', 'MongoWaitQueueTimeoutError']);

/**
 * Node's socket errors, which the driver (7.9) lets out unwrapped when a write meets a socket the server has
 * already ended (`EPIPE`, "This socket has been ended by the other party", from the drain it awaits).
 */
const SOCKET_ERROR_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTCONN',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

/**
 * FerretDB answers a command its shutdown interrupts with InternalError (code 1) "... context canceled", where
 * MongoDB says InterruptedAtShutdown; any other InternalError stays one.
 */
function isInterruptedFerretDbCommand(error: MongoError): boolean {
  return error.code === 1 && /\bcontext canceled\b/.test(error.message);
}

function isSocketError(error: unknown): boolean {
  return error instanceof Error && SOCKET_ERROR_CODES.has(String((error as NodeJS.ErrnoException).code));
}

const TOO_LARGE_CODES = new Set([10334 /* BSONObjectTooLarge */, 17280 /* KeyTooLong */]);

type WriteErrors = ReadonlyArray<{ code?: number; index?: number }>;

/** A bulk write's per-operation errors (the driver gives one or an array). */
function writeErrorsOf(error: unknown): WriteErrors {
  const given: unknown =
    error instanceof MongoBulkWriteError ? error.writeErrors : (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (given === undefined || given === null) return [];
  return (Array.isArray(given) ? given : [given]) as WriteErrors;
}

export function isDuplicateKey(error: unknown): boolean {
  if (!(error instanceof MongoError)) return false;
  return error.code === DUPLICATE_KEY || writeErrorsOf(error).some((w) => w.code === DUPLICATE_KEY);
}

/** Which operation of a bulk write hit a duplicate key (its position in the bulk), when the server says. */
export function duplicateKeyIndex(error: unknown): number | undefined {
  return writeErrorsOf(error).find((w) => w.code === DUPLICATE_KEY)?.index;
}

/**
 * Whether a failure of a driver call is the deployment's state (connection, election, timeout, a client
 * replaced), not the request.
 */
export function isTransientMongoError(error: unknown): boolean {
  if (isSocketError(error)) return true;
  if (!(error instanceof MongoError)) return false;
  if (
    CLOSED_UNDER_OPERATION.some((type) => error instanceof type) ||
    CLOSED_UNDER_OPERATION_NAMES.has(error.name) ||
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoWriteConcernError
  ) {
    return true;
  }
  if (TRANSIENT_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  if (typeof error.code === 'number' && TRANSIENT_CODES.has(error.code)) return true;
  if (isInterruptedFerretDbCommand(error)) return true;
  if (!(error instanceof MongoBulkWriteError)) return false;
  // A bulk write that failed as a whole (no server reached) keeps the error that failed it.
  const cause: unknown = error.errorResponse;
  return (
    error.writeConcernError !== undefined ||
    (cause !== error && cause instanceof MongoError && isTransientMongoError(cause))
  );
}

/**
 * The AppError for a failure of a driver call (`what`: "store x: get"); AppErrors and errors that are neither
 * the driver's nor a socket's (a bug) pass through.
 */
export function mapMongoError(error: unknown, what: string): unknown {
  if (error instanceof AppError) return error;
  if (isSocketError(error))
    return storeUnavailable(`mongodb unavailable (${what}): ${(error as Error).message}`, error);
  if (!(error instanceof MongoError)) return error;
  if (isDuplicateKey(error)) return conflict(`${what}: the key already exists`, { cause: error });
  if (isTransientMongoError(error)) return storeUnavailable(`mongodb unavailable (${what}): ${error.message}`, error);
  const code = typeof error.code === 'number' ? error.code : undefined;
  if (code !== undefined && TOO_LARGE_CODES.has(code))
    return new AppError('payload_too_large', `${what}: ${error.message}`, { cause: error });
  const name = error instanceof MongoServerError && error.codeName ? ` ${error.codeName}` : '';
  return new AppError(
    'internal',
    `mongodb refused ${what}:${name}${code === undefined ? '' : ` (code ${code})`}: ${error.message}`,
    { cause: error },
  );
}

/**
 * A put of a transaction lost an upsert race: another writer inserted the key after the transaction's
 * snapshot, and the server answered duplicate key rather than a write conflict. The transaction is aborted
 * and, unlike a write conflict, not retried by the driver; run again, its upsert finds the record and
 * replaces it (as `MongoStore.put` does outside transactions). `conflict` is what the caller gets when the
 * race is lost every time.
 */
export class LostPutRace extends Error {
  constructor(readonly conflict: AppError) {
    super(conflict.message, { cause: conflict });
    this.name = 'LostPutRace';
  }
}

/** Runs `run` (a whole transaction) up to `attempts` times while it loses put races; anything else is thrown at once. */
export async function retryLostPutRaces<T>(attempts: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof LostPutRace)) throw error;
      if (attempt >= attempts) throw error.conflict;
    }
  }
}
