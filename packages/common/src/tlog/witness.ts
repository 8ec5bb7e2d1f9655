import { AppError, badRequest, forbidden, notFound } from '../errors/index.js';
import { EMPTY_TREE_ROOT, verifyConsistency } from '../merkle/index.js';
import { parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { ed25519Verify, parseNote, type NoteVerifier } from './signed-note.js';

/**
 * C2SP tlog-witness (c2sp.org/tlog-witness): the body of `POST <prefix>/add-checkpoint` (`old <size>` line,
 * up to 63 base64 consistency-proof lines, a blank line, the checkpoint note), the `text/x.tlog.size` body of
 * its 409, and the checks a witness makes before it cosigns, as a pure function of the request and the
 * checkpoint it holds for the origin.
 */

export const TLOG_SIZE_MEDIA_TYPE = 'text/x.tlog.size';
/** A client sends at most this many proof lines (a proof in a tree of 2^63 leaves is shorter). */
export const MAX_PROOF_LINES = 63;
const SIZE = /^(0|[1-9][0-9]*)$/;

export interface AddCheckpointRequest {
  /** The size of the checkpoint the client believes the witness holds (0: none). */
  oldSize: number;
  /** The RFC 6962 consistency proof from `oldSize` to the checkpoint's size, 32-byte hashes. */
  proof: Buffer[];
  /** The checkpoint as a signed note, signatures included. */
  note: string;
}

export function formatAddCheckpoint({ oldSize, proof, note }: AddCheckpointRequest): string {
  assertSize(oldSize, 'old size');
  if (proof.length > MAX_PROOF_LINES) throw badRequest(`a consistency proof has at most ${MAX_PROOF_LINES} hashes`);
  if (proof.some((hash) => hash.length !== 32)) throw badRequest('a consistency proof holds 32-byte hashes');
  return `old ${oldSize}\n${proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${note}`;
}

/** Reads an add-checkpoint body; anything malformed is a `bad_request` (the spec's 400). */
export function parseAddCheckpoint(body: string): AddCheckpointRequest {
  const blank = body.indexOf('\n\n');
  if (blank < 0)
    throw badRequest('an add-checkpoint body has an old size line, proof lines, a blank line, a checkpoint');
  const [first = '', ...proofLines] = body.slice(0, blank).split('\n');
  const size = first.startsWith('old ') ? first.slice(4) : '';
  if (!SIZE.test(size) || !Number.isSafeInteger(Number(size)))
    throw badRequest(`the first line of an add-checkpoint body is "old <size>", not ${JSON.stringify(first)}`);
  if (proofLines.length > MAX_PROOF_LINES)
    throw badRequest(`a consistency proof has at most ${MAX_PROOF_LINES} lines, not ${proofLines.length}`);
  const proof = proofLines.map((line) => {
    const hash = Buffer.from(line, 'base64');
    if (hash.length !== 32 || hash.toString('base64') !== line)
      throw badRequest(`consistency proof line ${JSON.stringify(line)} is not the base64 of a 32-byte hash`);
    return hash;
  });
  return { oldSize: Number(size), proof, note: body.slice(blank + 2) };
}

/** The `text/x.tlog.size` body: a decimal size and a newline. */
export function formatTreeSize(size: number): string {
  assertSize(size, 'tree size');
  return `${size}\n`;
}

export function parseTreeSize(body: string): number {
  const size = body.endsWith('\n') ? body.slice(0, -1) : '';
  if (!SIZE.test(size) || !Number.isSafeInteger(Number(size)))
    throw badRequest(`a ${TLOG_SIZE_MEDIA_TYPE} body is a decimal size and a newline, not ${JSON.stringify(body)}`);
  return Number(size);
}

/** The checkpoint a witness holds for an origin (the latest it cosigned). */
export interface WitnessedCheckpoint {
  size: number;
  rootHash: Buffer;
}

/** What the witness checks decided: cosign the checkpoint, or answer 409 with the size held. */
export type WitnessDecision =
  { accept: true; checkpoint: Checkpoint; text: string } | { accept: false; heldSize: number };

/**
 * The checks of add-checkpoint, in the spec's order. `logKeysOf` answers the trusted keys of an origin
 * (undefined: unknown origin); `held` is the witness's checkpoint for it. Throws the spec's errors as
 * `AppError`s: 400 malformed or old size past the checkpoint, 404 unknown origin, 403 no valid signature by
 * a trusted key, 422 a consistency proof that does not verify (or a non-empty one from 0, or another root at
 * the same size); a mismatched old size is a decision, since its 409 carries a body of its own.
 */
export function checkAddCheckpoint(
  request: AddCheckpointRequest,
  logKeysOf: (origin: string) => readonly NoteVerifier[] | undefined,
  held: (origin: string) => WitnessedCheckpoint | undefined,
): WitnessDecision {
  const { text, signatures } = parseNote(request.note);
  const checkpoint = parseCheckpoint(text);
  const keys = logKeysOf(checkpoint.origin);
  if (keys === undefined) throw notFound(`unknown log origin ${JSON.stringify(checkpoint.origin)}`);
  const message = Buffer.from(text, 'utf8');
  let trusted = 0;
  for (const signature of signatures) {
    const key = keys.find((k) => k.name === signature.name && k.keyHash === signature.keyHash);
    if (!key) continue;
    if (!ed25519Verify(key.publicKey, message, signature.bytes.subarray(4)))
      throw forbidden(`the signature of log key ${signature.name} does not verify`);
    trusted++;
  }
  if (trusted === 0) throw forbidden(`no signature by a key trusted for ${checkpoint.origin}`);
  if (request.oldSize > checkpoint.size)
    throw badRequest(`old size ${request.oldSize} is past the checkpoint's size ${checkpoint.size}`);
  const current = held(checkpoint.origin);
  const heldSize = current?.size ?? 0;
  if (request.oldSize !== heldSize) return { accept: false, heldSize };
  if (checkpoint.size === 0 && !checkpoint.rootHash.equals(EMPTY_TREE_ROOT))
    throw unprocessable('a checkpoint of size 0 has the root of the empty tree');
  if (request.oldSize === 0) {
    if (request.proof.length > 0) throw unprocessable('a consistency proof from size 0 is empty');
  } else if (
    !verifyConsistency(
      request.oldSize,
      checkpoint.size,
      (current as WitnessedCheckpoint).rootHash,
      checkpoint.rootHash,
      request.proof,
    )
  ) {
    throw unprocessable(
      request.oldSize === checkpoint.size
        ? `the checkpoint's root differs from the one held at size ${heldSize}: a split view`
        : `the consistency proof from ${request.oldSize} to ${checkpoint.size} does not verify against the held root`,
    );
  }
  return { accept: true, checkpoint, text };
}

function unprocessable(message: string): AppError {
  return new AppError('unprocessable', message);
}

function assertSize(size: number, what: string): void {
  if (!Number.isSafeInteger(size) || size < 0) throw badRequest(`a ${what} is a count, not ${size}`);
}
