import { isKmsCryptoError, type KmsCryptoErrorCode } from '../errors.js';
import type { KeyMaterial } from '../key-material.js';
import { sign } from '../signatures.js';

/** One share of a batch: the key (by a cache key, so a thread parses it once) and the messages to sign. */
export interface SignTask {
  /** Names the key version (its store AAD): the same key for the same name, always. */
  keyName: string;
  material: KeyMaterial;
  messages: Uint8Array[];
}

/** The signatures in order, or the crypto core's refusal as plain data (errors lose their class across threads). */
export type SignOutcome = { signatures: Uint8Array[] } | { error: { code: KmsCryptoErrorCode; message: string } };

/** Signs every message of the task with its key; a refusal of any message is the task's. */
export function runSignTask(task: SignTask, material: KeyMaterial = task.material): SignOutcome {
  try {
    return { signatures: task.messages.map((message) => sign(material, message)) };
  } catch (error) {
    if (isKmsCryptoError(error)) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}
