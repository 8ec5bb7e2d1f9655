import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { badRequest } from '../errors/index.js';

/**
 * C2SP signed notes (c2sp.org/signed-note), as Go's golang.org/x/mod/sumdb/note writes and reads them: a
 * UTF-8 text ending in a newline, a blank line, then one line per signature, `— <name> <base64(key hash ‖
 * signature)>`. Keys are Ed25519 (algorithm byte 0x01); a key's hash is the first 4 bytes of SHA-256(name ‖
 * "\n" ‖ 0x01 ‖ public key), and its verifier key is `<name>+<hash, 8 hex>+<base64(0x01 ‖ public key)>`.
 */

const ALG_ED25519 = 0x01;
const SIGNATURE_PREFIX = '— ';
/** Go refuses a note with more; so do we, before verifying anything. */
const MAX_SIGNATURES = 100;
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface NoteVerifier {
  name: string;
  keyHash: number;
  /** The raw 32-byte Ed25519 public key. */
  publicKey: Buffer;
}

export interface NoteSignature {
  name: string;
  keyHash: number;
  /** The base64 of key hash ‖ signature, as on its line. */
  base64: string;
}

export interface OpenedNote {
  text: string;
  /** Signatures by a known verifier, each checked. */
  verified: NoteSignature[];
  /** Signatures by keys not given, unchecked. */
  unverified: NoteSignature[];
}

/** Non-empty, no Unicode space and no `+` (the key strings use it as a separator). */
export function isValidKeyName(name: string): boolean {
  return name !== '' && !/[\s+]/u.test(name) && !/\p{Cs}/u.test(name);
}

/**
 * The key hash of a public key under a name: SHA-256(name ‖ "\n" ‖ algorithm ‖ key)[:4]; the algorithm is
 * Ed25519's 0x01 unless given (a cosignature key's is 0x04, c2sp.org/tlog-cosignature).
 */
export function noteKeyHash(name: string, publicKey: Uint8Array, algorithm: number = ALG_ED25519): number {
  const digest = createHash('sha256')
    .update(`${name}\n`)
    .update(Buffer.from([algorithm]))
    .update(publicKey)
    .digest();
  return digest.readUInt32BE(0);
}

/** The verifier key string of an Ed25519 public key (raw 32 bytes). */
export function ed25519VerifierKey(name: string, publicKey: Uint8Array): string {
  if (!isValidKeyName(name)) throw badRequest(`'${name}' is not a valid note key name (no spaces, no '+')`);
  if (publicKey.length !== 32) throw badRequest(`an Ed25519 public key is 32 bytes, not ${publicKey.length}`);
  const hash = noteKeyHash(name, publicKey).toString(16).padStart(8, '0');
  return `${name}+${hash}+${Buffer.concat([Buffer.from([ALG_ED25519]), publicKey]).toString('base64')}`;
}

/** Reads a verifier key string; a wrong hash, algorithm or length is a `bad_request`. */
export function parseVerifierKey(verifierKey: string): NoteVerifier {
  const [name = '', hash = '', key = ''] = chop(verifierKey, 3);
  const bytes = Buffer.from(key, 'base64');
  if (!isValidKeyName(name) || !/^[0-9a-f]{8}$/i.test(hash) || bytes.toString('base64') !== key)
    throw badRequest(`'${verifierKey}' is not a note verifier key (<name>+<8 hex>+<base64 key>)`);
  if (bytes[0] !== ALG_ED25519 || bytes.length !== 33)
    throw badRequest('a note verifier key must be an Ed25519 key (algorithm 1, 32 bytes)');
  const publicKey = bytes.subarray(1);
  const keyHash = Number.parseInt(hash, 16);
  if (noteKeyHash(name, publicKey) !== keyHash)
    throw badRequest(`the key hash ${hash} does not match the key of ${name}`);
  return { name, keyHash, publicKey };
}

/**
 * Reads a signer key string (`PRIVATE+KEY+<name>+<hash>+<base64(0x01 ‖ seed)>`), as Go's GenerateKey writes
 * it: the key to sign with, and its verifier.
 */
export function parseSignerKey(signerKey: string): { verifier: NoteVerifier; privateKey: KeyObject } {
  const [private1, private2, name = '', hash = '', key = ''] = chop(signerKey, 5);
  const bytes = Buffer.from(key, 'base64');
  if (private1 !== 'PRIVATE' || private2 !== 'KEY' || !isValidKeyName(name) || !/^[0-9a-f]{8}$/i.test(hash))
    throw badRequest('not a note signer key (PRIVATE+KEY+<name>+<8 hex>+<base64 key>)');
  if (bytes[0] !== ALG_ED25519 || bytes.length !== 33) throw badRequest('a note signer key must be an Ed25519 seed');
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes.subarray(1)]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey)
    .export({ format: 'der', type: 'spki' })
    .subarray(ED25519_SPKI_PREFIX.length);
  const verifier = { name, keyHash: noteKeyHash(name, publicKey), publicKey: Buffer.from(publicKey) };
  if (verifier.keyHash !== Number.parseInt(hash, 16))
    throw badRequest(`the key hash ${hash} does not match the key of ${name}`);
  return { verifier, privateKey };
}

/** Signs `message` (the note text's bytes): a local Ed25519 key, or a kms through the common Signer. */
export type NoteSign = (message: Buffer) => Uint8Array | Promise<Uint8Array>;

/** A local Ed25519 private key as a `NoteSign`. */
export function ed25519NoteSign(privateKey: KeyObject): NoteSign {
  return (message) => sign(null, message, privateKey);
}

/** The signed note of `text` with one signature per signer, in order. */
export async function signNote(
  text: string,
  signers: ReadonlyArray<{ name: string; keyHash: number; sign: NoteSign }>,
): Promise<string> {
  assertNoteText(text);
  if (signers.length === 0) throw badRequest('a signed note needs a signature');
  const message = Buffer.from(text, 'utf8');
  const lines: string[] = [];
  for (const signer of signers) {
    if (!isValidKeyName(signer.name)) throw badRequest(`'${signer.name}' is not a valid note key name`);
    lines.push(formatSignatureLine(signer.name, signer.keyHash, await signer.sign(message)));
  }
  return `${text}\n${lines.join('')}`;
}

/** A signed note split into its text and its signature lines, nothing verified yet. */
export interface ParsedNote {
  text: string;
  signatures: Array<NoteSignature & { bytes: Buffer }>;
}

/**
 * Splits a signed note into its text and signature lines (each name valid, each signature base64 of key hash
 * and signature); a malformed note is a `bad_request` starting "malformed signed note". Nothing is verified.
 */
export function parseNote(note: string): ParsedNote {
  // Valid UTF-8 (a JS string is, but for lone surrogates) and no ASCII control character but the newline.
  if (hasForbiddenCharacter(note)) throw malformed('a control character');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw malformed('no blank line before its signatures');
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block === '' || !block.endsWith('\n')) throw malformed('no signature lines');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) throw malformed(`more than ${MAX_SIGNATURES} signatures`);
  const signatures = lines.map((line) => {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw malformed(`a line that is no signature: ${JSON.stringify(line)}`);
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.indexOf(' ');
    const name = space < 0 ? rest : rest.slice(0, space);
    const base64 = space < 0 ? '' : rest.slice(space + 1);
    const bytes = Buffer.from(base64, 'base64');
    if (!isValidKeyName(name) || base64 === '' || bytes.toString('base64') !== base64 || bytes.length < 5)
      throw malformed(`a malformed signature line: ${JSON.stringify(line)}`);
    return { name, keyHash: bytes.readUInt32BE(0), base64, bytes };
  });
  return { text, signatures };
}

/** A signature line as a note carries it (`— <name> <base64>\n`). */
export function formatSignatureLine(name: string, keyHash: number, signature: Uint8Array): string {
  if (!isValidKeyName(name)) throw badRequest(`'${name}' is not a valid note key name`);
  const hash = Buffer.alloc(4);
  hash.writeUInt32BE(keyHash >>> 0);
  return `${SIGNATURE_PREFIX}${name} ${Buffer.concat([hash, signature]).toString('base64')}\n`;
}

/** Whether an Ed25519 signature by a raw 32-byte public key verifies. */
export function ed25519Verify(publicKey: Buffer, message: Buffer, signature: Buffer): boolean {
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return verify(null, message, key, signature);
}

/**
 * Opens a signed note: its text, its signatures by the given verifiers (each checked: a bad one is a
 * `bad_request`, as is a note no given verifier signed) and the others, unchecked.
 */
export function openNote(note: string, verifiers: readonly NoteVerifier[]): OpenedNote {
  const { text, signatures } = parseNote(note);
  const message = Buffer.from(text, 'utf8');
  const opened: OpenedNote = { text, verified: [], unverified: [] };
  const seen = new Set<string>();
  for (const { bytes, ...signature } of signatures) {
    const { name, keyHash, base64 } = signature;
    const line = `${name} ${base64}`;
    const key = `${name}+${keyHash}`;
    const verifier = verifiers.find((candidate) => candidate.name === name && candidate.keyHash === keyHash);
    if (!verifier) {
      if (!seen.has(line)) opened.unverified.push(signature);
      seen.add(line);
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    if (!ed25519Verify(verifier.publicKey, message, bytes.subarray(4)))
      throw badRequest(`invalid note signature for key ${name}+${keyHash.toString(16).padStart(8, '0')}`);
    opened.verified.push(signature);
  }
  if (opened.verified.length === 0) throw badRequest('the note has no signature by a known key');
  return opened;
}

function assertNoteText(text: string): void {
  if (!text.endsWith('\n')) throw badRequest('a note text must end with a newline');
  if (hasForbiddenCharacter(text))
    throw badRequest('a note text must be UTF-8 without control characters but newlines');
}

/** An ASCII control character other than the newline, or a lone surrogate (no UTF-8 for it). */
function hasForbiddenCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x0a) return true;
  }
  return /\p{Cs}/u.test(text);
}

/** `count` fields split at '+', the last holding the rest (a base64 key may hold '+'). */
function chop(text: string, count: number): string[] {
  const fields = text.split('+');
  return [...fields.slice(0, count - 1), fields.slice(count - 1).join('+')];
}

function malformed(what: string): Error {
  return badRequest(`malformed signed note: ${what}`);
}
