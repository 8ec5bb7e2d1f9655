import { badRequest } from '../errors/index.js';
import {
  ed25519Verify,
  formatSignatureLine,
  isValidKeyName,
  noteKeyHash,
  parseNote,
  type NoteSign,
  type NoteSignature,
  type NoteVerifier,
} from './signed-note.js';

/**
 * C2SP tlog-cosignature, the Ed25519 type (cosignature/v1): a witness's note signature on a checkpoint. Its
 * key hash is SHA-256(name ‖ "\n" ‖ 0x04 ‖ key)[:4], so a verifier never takes it for the log's own Ed25519
 * signature (0x01); its signature bytes are an 8-byte big-endian POSIX timestamp then the Ed25519 signature
 * of `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint's whole text.
 */

/** The signature type of an Ed25519 cosignature key (its vkey's first key byte, its key hash's algorithm). */
export const ALG_COSIGNATURE_V1 = 0x04;
const TIMESTAMP_BYTES = 8;
const ED25519_SIGNATURE_BYTES = 64;
/** The spec caps a timestamp at 2^63 - 1; JavaScript numbers carry seconds exactly up to 2^53 - 1. */
const MAX_TIMESTAMP = Number.MAX_SAFE_INTEGER;

/** A witness known by name and Ed25519 public key; its key hash is the cosignature one (0x04). */
export type Cosigner = NoteVerifier;

/** A verified cosignature. */
export interface Cosignature {
  name: string;
  keyHash: number;
  /** POSIX seconds the witness signed at. */
  timestamp: number;
  /** The signature line as the note carries it (ends with a newline). */
  line: string;
}

/** The key hash of a cosignature/v1 key. */
export function cosignatureKeyHash(name: string, publicKey: Uint8Array): number {
  return noteKeyHash(name, publicKey, ALG_COSIGNATURE_V1);
}

/** The vkey of a witness's cosignature key: `<name>+<hash, 8 hex>+<base64(0x04 ‖ public key)>`. */
export function cosignatureVerifierKey(name: string, publicKey: Uint8Array): string {
  if (!isValidKeyName(name)) throw badRequest(`'${name}' is not a valid note key name (no spaces, no '+')`);
  if (publicKey.length !== 32) throw badRequest(`an Ed25519 public key is 32 bytes, not ${publicKey.length}`);
  const hash = cosignatureKeyHash(name, publicKey).toString(16).padStart(8, '0');
  return `${name}+${hash}+${Buffer.concat([Buffer.from([ALG_COSIGNATURE_V1]), publicKey]).toString('base64')}`;
}

/** Reads a cosignature vkey (type 0x04); another type, a wrong hash or length is a `bad_request`. */
export function parseCosignatureVerifierKey(vkey: string): Cosigner {
  const [name = '', hash = '', ...rest] = vkey.split('+');
  const key = rest.join('+');
  const bytes = Buffer.from(key, 'base64');
  if (!isValidKeyName(name) || !/^[0-9a-f]{8}$/i.test(hash) || key === '' || bytes.toString('base64') !== key)
    throw badRequest(`'${vkey}' is not a cosignature verifier key (<name>+<8 hex>+<base64 key>)`);
  if (bytes[0] !== ALG_COSIGNATURE_V1 || bytes.length !== 33)
    throw badRequest(`'${vkey}' is not an Ed25519 cosignature/v1 key (type 0x04, 32 bytes)`);
  const publicKey = bytes.subarray(1);
  const keyHash = Number.parseInt(hash, 16);
  if (cosignatureKeyHash(name, publicKey) !== keyHash)
    throw badRequest(`the key hash ${hash} does not match the cosignature key of ${name}`);
  return { name, keyHash, publicKey };
}

/** The message a cosignature/v1 signs: header line, time line, then the checkpoint's text. */
export function cosignatureMessage(text: string, timestamp: number): Buffer {
  assertTimestamp(timestamp);
  if (!text.endsWith('\n') || text.split('\n').length < 4)
    throw badRequest('a cosigned checkpoint has at least three newline-terminated lines');
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${text}`, 'utf8');
}

/**
 * The cosignature line of a witness on a checkpoint text at `timestamp` (POSIX seconds, not zero): what a
 * witness answers add-checkpoint with, and what a log appends to its checkpoint note.
 */
export async function cosignCheckpoint(
  text: string,
  signer: { name: string; keyHash: number; sign: NoteSign },
  timestamp: number,
): Promise<string> {
  if (timestamp === 0) throw badRequest('a checkpoint cosignature carries its time (not zero)');
  const message = cosignatureMessage(text, timestamp);
  const signature = Buffer.from(await signer.sign(message));
  if (signature.length !== ED25519_SIGNATURE_BYTES)
    throw badRequest(`an Ed25519 signature is 64 bytes, not ${signature.length}`);
  const time = Buffer.alloc(TIMESTAMP_BYTES);
  time.writeBigUInt64BE(BigInt(timestamp));
  return formatSignatureLine(signer.name, signer.keyHash, Buffer.concat([time, signature]));
}

/**
 * The cosignatures among a checkpoint's signatures by the given cosigners, each checked; signatures of
 * other keys are ignored. A signature whose name and key hash are a cosigner's but that does not verify
 * (or has not the 72 bytes of timestamp and signature) makes the note malformed: a `bad_request`.
 */
export function verifyCosignatures(
  text: string,
  signatures: readonly NoteSignature[],
  cosigners: readonly Cosigner[],
): Cosignature[] {
  const found: Cosignature[] = [];
  const seen = new Set<string>();
  for (const signature of signatures) {
    const cosigner = cosigners.find((c) => c.name === signature.name && c.keyHash === signature.keyHash);
    if (!cosigner) continue;
    const id = `${cosigner.name}+${cosigner.keyHash}`;
    const keyId = `${cosigner.name}+${cosigner.keyHash.toString(16).padStart(8, '0')}`;
    const bytes = Buffer.from(signature.base64, 'base64').subarray(4);
    let timestamp: number;
    try {
      timestamp = cosignatureTimestamp(signature);
    } catch (error) {
      throw badRequest(`cosignature of ${keyId}: ${(error as Error).message}`);
    }
    const message = cosignatureMessage(text, timestamp);
    if (!ed25519Verify(cosigner.publicKey, message, bytes.subarray(TIMESTAMP_BYTES)))
      throw badRequest(`invalid cosignature for key ${keyId}`);
    // One key counts once, as one witness, however often its line is repeated.
    if (seen.has(id)) continue;
    seen.add(id);
    found.push({
      name: cosigner.name,
      keyHash: cosigner.keyHash,
      timestamp,
      line: `— ${signature.name} ${signature.base64}\n`,
    });
  }
  return found;
}

/**
 * Reads a witness's add-checkpoint answer (one or more note signature lines) as cosignatures of `text`
 * by the given cosigners; lines by other keys are ignored. A malformed answer is a `bad_request`.
 */
export function parseCosignatureLines(text: string, body: string, cosigners: readonly Cosigner[]): Cosignature[] {
  if (body === '') throw badRequest('a witness answer holds at least one signature line');
  // Appended to the text they sign, the lines form a note (the spec's own way to read them).
  const { signatures } = parseNote(`${text}\n${body}`);
  return verifyCosignatures(text, signatures, cosigners);
}

/**
 * The timestamp a cosignature line's bytes carry, unverified (bytes after the key hash: 8 of time, 64 of
 * signature); another length is a `bad_request`.
 */
export function cosignatureTimestamp(signature: Pick<NoteSignature, 'base64'>): number {
  const bytes = Buffer.from(signature.base64, 'base64').subarray(4);
  if (bytes.length !== TIMESTAMP_BYTES + ED25519_SIGNATURE_BYTES)
    throw badRequest(`a cosignature/v1 is 8 bytes of time and 64 of signature, not ${bytes.length} bytes`);
  const time = bytes.readBigUInt64BE(0);
  if (time > BigInt(MAX_TIMESTAMP)) throw badRequest('a cosignature timestamp past 2^53 seconds');
  return Number(time);
}

function assertTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0 || timestamp > MAX_TIMESTAMP)
    throw badRequest(`a cosignature timestamp is a count of seconds, not ${timestamp}`);
}
