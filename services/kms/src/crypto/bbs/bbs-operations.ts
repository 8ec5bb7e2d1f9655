import { createHash } from 'node:crypto';
import { isKmsCryptoError, type KmsCryptoErrorCode } from '../errors.js';
import { rawSecret, type KeyMaterial } from '../key-material.js';
import { proofGen, proofVerify, sign, skToPk, verify } from './bbs-core.js';
import { os2ip } from './ciphersuite.js';

/** One BBS operation, with inputs already checked (index.ts): what crosses to a worker thread. */
export type BbsTask =
  | { op: 'sign'; key: KeyMaterial; messages: Uint8Array[]; header: Uint8Array }
  | { op: 'verify'; publicKey: Uint8Array; signature: Uint8Array; messages: Uint8Array[]; header: Uint8Array }
  | {
      op: 'deriveProof';
      publicKey: Uint8Array;
      signature: Uint8Array;
      messages: Uint8Array[];
      revealed: number[];
      presentationHeader: Uint8Array;
      header: Uint8Array;
    }
  | {
      op: 'verifyProof';
      publicKey: Uint8Array;
      proof: Uint8Array;
      revealed: Array<[number, Uint8Array]>;
      presentationHeader: Uint8Array;
      header: Uint8Array;
    };

/**
 * A task's result, or the KmsCryptoError it ended with as plain data: the worker pool passes on only the
 * project's AppErrors, and the caller wants the crypto core's error back.
 */
export type BbsOutcome = { value: Uint8Array | boolean } | { error: { code: KmsCryptoErrorCode; message: string } };

/** The key's secret scalar; its length and range were checked when the KeyMaterial was made. */
export function secretScalar(key: KeyMaterial): bigint {
  return os2ip(rawSecret(key));
}

/**
 * Public keys by a digest of their secret: deriving one is a G2 multiplication, dearer than the signature,
 * and KeyMaterial objects that crossed to a worker thread are new objects each time.
 */
const publicKeys = new Map<string, Uint8Array>();
const PUBLIC_KEY_CACHE_SIZE = 256;

export function publicKeyOf(key: KeyMaterial): Uint8Array {
  const id = createHash('sha256').update(key.secret).digest('hex');
  const cached = publicKeys.get(id);
  if (cached) return cached;
  const publicKey = skToPk(secretScalar(key));
  if (publicKeys.size >= PUBLIC_KEY_CACHE_SIZE) publicKeys.delete(publicKeys.keys().next().value!);
  publicKeys.set(id, publicKey);
  return publicKey;
}

function run(task: BbsTask): Uint8Array | boolean {
  switch (task.op) {
    case 'sign':
      return sign(secretScalar(task.key), publicKeyOf(task.key), task.header, task.messages);
    case 'verify':
      return verify(task.publicKey, task.signature, task.header, task.messages);
    case 'deriveProof':
      return proofGen(
        task.publicKey,
        task.signature,
        task.header,
        task.presentationHeader,
        task.messages,
        task.revealed,
      );
    case 'verifyProof':
      return proofVerify(task.publicKey, task.proof, task.header, task.presentationHeader, task.revealed);
  }
}

export function runBbsTask(task: BbsTask): BbsOutcome {
  try {
    return { value: run(task) };
  } catch (error) {
    if (isKmsCryptoError(error)) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}
