import { randomBytes } from 'node:crypto';
import { WorkerPool } from '@anchor/common/workers';
import { KmsCryptoError, badInput } from '../errors.js';
import { keyMaterial, rawSecret, requireBytes, requireKind, type KeyMaterial } from '../key-material.js';
import { keyGen, undisclosedCount } from './bbs-core.js';
import { publicKeyOf, runBbsTask, type BbsOutcome, type BbsTask } from './bbs-operations.js';
import { OCTET_POINT_LENGTH, OCTET_SCALAR_LENGTH, os2ip, r, scalarToOctets } from './ciphersuite.js';

/**
 * BBS signatures for BLS12381G2 keys: the ciphersuite BLS12-381-SHA-256 of draft-irtf-cfrg-bbs-signatures-09
 * (README.md beside this file: the draft, the fixtures, the speed, and why it does not interoperate with the
 * original's 2020 BBS+).
 */
export const BBS_SECRET_KEY_LENGTH = OCTET_SCALAR_LENGTH;
export const BBS_PUBLIC_KEY_LENGTH = 96;
export const BBS_SIGNATURE_LENGTH = OCTET_POINT_LENGTH + OCTET_SCALAR_LENGTH;
/** Messages per signature or proof; bounds the generators a request makes the process derive and keep. */
export const BBS_MAX_MESSAGES = 1024;

/** A disclosed message of a proof and its index among the signed messages. */
export interface RevealedMessage {
  index: number;
  message: Uint8Array;
}

/** A new key: the draft's KeyGen over 32 random bytes. */
export function generateBbsKey(): KeyMaterial {
  return keyMaterial('BLS12381G2', scalarToOctets(keyGen(randomBytes(32))));
}

/** A key from the draft's secret key octets: a 32-byte big-endian scalar in [1, r-1]. */
export function importBbsKey(key: Uint8Array): KeyMaterial {
  requireBytes(key, 'key');
  if (key.length !== BBS_SECRET_KEY_LENGTH)
    throw badInput(`a BLS12381G2 key is a ${BBS_SECRET_KEY_LENGTH}-byte scalar, got ${key.length} bytes`);
  const scalar = os2ip(key);
  if (scalar === 0n || scalar >= r) throw badInput('a BLS12381G2 key must be a scalar between 1 and r-1');
  return keyMaterial('BLS12381G2', key);
}

/** The key's public key: the 96-byte compressed G2 point (SkToPk). */
export function bbsPublicKey(m: KeyMaterial): Uint8Array {
  return publicKeyOf(checkedKey(m));
}

function checkedKey(m: KeyMaterial): KeyMaterial {
  requireKind(m, ['bbs'], 'make BBS signatures');
  const secret = rawSecret(m);
  const scalar = os2ip(secret);
  if (secret.length !== BBS_SECRET_KEY_LENGTH || scalar === 0n || scalar >= r)
    throw badInput('key material secret is not a BLS12381G2 key');
  return m;
}

function checkedMessages(messages: Uint8Array[], field: string): Uint8Array[] {
  if (!Array.isArray(messages)) throw badInput(`${field} must be a list of byte strings`);
  if (messages.length > BBS_MAX_MESSAGES)
    throw badInput(`${field} has ${messages.length} entries, more than ${BBS_MAX_MESSAGES}`);
  messages.forEach((message, i) => requireBytes(message, `${field}[${i}]`));
  return messages;
}

function checkedLength(value: Uint8Array, length: number, field: string): Uint8Array {
  requireBytes(value, field);
  if (value.length !== length) throw badInput(`${field} must be ${length} bytes, got ${value.length}`);
  return value;
}

function checkedIndex(index: unknown, count: number | undefined, field: string): number {
  if (!Number.isSafeInteger(index) || (index as number) < 0 || (count !== undefined && (index as number) >= count))
    throw badInput(
      `${field} must be a whole number${count === undefined ? ' not below 0' : ` from 0 to ${count - 1}`}, got ${String(index)}`,
    );
  return index as number;
}

/** Ascending, each once: the draft's order; a repeated index is bad input rather than a silent dedupe. */
function ascending<T>(entries: Array<[number, T]>, field: string): Array<[number, T]> {
  const sorted = [...entries].sort(([a], [b]) => a - b);
  sorted.forEach(([index], k) => {
    if (k > 0 && index === sorted[k - 1]![0]) throw badInput(`${field} names index ${index} twice`);
  });
  return sorted;
}

/**
 * The BBS operations. CPU-heavy (multiplications on BLS12-381, a pairing product per verification; figures in
 * README.md): a service runs them on worker threads (`createBbs({ threads })`); with `threads: 0` they run on
 * the calling thread. Every bad input rejects with a KmsCryptoError; a signature or proof that
 * does not verify is `false`.
 */
export interface BbsOperations {
  sign(m: KeyMaterial, messages: Uint8Array[], header?: Uint8Array): Promise<Uint8Array>;
  verify(publicKey: Uint8Array, signature: Uint8Array, messages: Uint8Array[], header?: Uint8Array): Promise<boolean>;
  /** A proof disclosing `revealed` (indexes into `messages`, any order); the signature must verify. */
  deriveProof(
    publicKey: Uint8Array,
    signature: Uint8Array,
    messages: Uint8Array[],
    revealed: number[],
    presentationHeader: Uint8Array,
    header?: Uint8Array,
  ): Promise<Uint8Array>;
  verifyProof(
    publicKey: Uint8Array,
    proof: Uint8Array,
    revealed: RevealedMessage[],
    presentationHeader: Uint8Array,
    header?: Uint8Array,
  ): Promise<boolean>;
  /** Worker threads in use (0: the calling thread). */
  readonly threads: number;
  close(): Promise<void>;
}

export interface BbsOptions {
  /** Worker threads; 0 runs the operations on the calling thread (tests, tools). */
  threads: number;
}

export async function createBbs(options: BbsOptions): Promise<BbsOperations> {
  let run: (task: BbsTask) => Promise<BbsOutcome>;
  let close = async (): Promise<void> => undefined;
  if (options.threads <= 0) {
    run = async (task) => runBbsTask(task);
  } else {
    const pool = new WorkerPool<BbsTask, BbsOutcome>({
      file: new URL('./bbs-worker.js', import.meta.url),
      size: options.threads,
      taskName: 'the BBS operation',
      logModule: 'kms-bbs-workers',
    });
    try {
      await pool.ready();
    } catch (error) {
      await pool.close();
      throw error;
    }
    run = (task) => pool.run(task);
    close = () => pool.close();
  }
  const outcome = async (task: BbsTask): Promise<Uint8Array | boolean> => {
    const result = await run(task);
    if ('error' in result) throw new KmsCryptoError(result.error.code, result.error.message);
    return result.value;
  };
  const header = (value: Uint8Array | undefined, field = 'header'): Uint8Array =>
    value === undefined ? new Uint8Array() : requireBytes(value, field);
  return {
    threads: Math.max(0, options.threads),
    sign: async (m, messages, head) =>
      (await outcome({
        op: 'sign',
        key: checkedKey(m),
        messages: checkedMessages(messages, 'messages'),
        header: header(head),
      })) as Uint8Array,
    verify: async (publicKey, signature, messages, head) =>
      (await outcome({
        op: 'verify',
        publicKey: checkedLength(publicKey, BBS_PUBLIC_KEY_LENGTH, 'publicKey'),
        signature: checkedLength(signature, BBS_SIGNATURE_LENGTH, 'signature'),
        messages: checkedMessages(messages, 'messages'),
        header: header(head),
      })) as boolean,
    deriveProof: async (publicKey, signature, messages, revealed, presentationHeader, head) => {
      checkedMessages(messages, 'messages');
      if (!Array.isArray(revealed)) throw badInput('revealedIndexes must be a list of indexes');
      const indexes = ascending(
        revealed.map(
          (index, i) =>
            [checkedIndex(index, messages.length, `revealedIndexes[${i}]`), undefined] as [number, undefined],
        ),
        'revealedIndexes',
      ).map(([index]) => index);
      return (await outcome({
        op: 'deriveProof',
        publicKey: checkedLength(publicKey, BBS_PUBLIC_KEY_LENGTH, 'publicKey'),
        signature: checkedLength(signature, BBS_SIGNATURE_LENGTH, 'signature'),
        messages,
        revealed: indexes,
        presentationHeader: header(presentationHeader, 'nonce'),
        header: header(head),
      })) as Uint8Array;
    },
    verifyProof: async (publicKey, proof, revealed, presentationHeader, head) => {
      if (!Array.isArray(revealed)) throw badInput('messages must be a list of revealed messages');
      if (revealed.length > BBS_MAX_MESSAGES)
        throw badInput(`messages has ${revealed.length} entries, more than ${BBS_MAX_MESSAGES}`);
      requireBytes(proof, 'proof');
      // The proof's length says how many messages were signed; bounded like a signature's, since verifying
      // derives that many generators.
      const signed = revealed.length + (undisclosedCount(proof.length) ?? 0);
      if (signed > BBS_MAX_MESSAGES) throw badInput(`proof covers ${signed} messages, more than ${BBS_MAX_MESSAGES}`);
      const entries = ascending(
        revealed.map(
          ({ index, message }, i) =>
            [checkedIndex(index, undefined, `revealedIndexes[${i}]`), requireBytes(message, `messages[${i}]`)] as [
              number,
              Uint8Array,
            ],
        ),
        'revealedIndexes',
      );
      return (await outcome({
        op: 'verifyProof',
        publicKey: checkedLength(publicKey, BBS_PUBLIC_KEY_LENGTH, 'publicKey'),
        proof,
        revealed: entries,
        presentationHeader: header(presentationHeader, 'nonce'),
        header: header(head),
      })) as boolean;
    },
    close,
  };
}
