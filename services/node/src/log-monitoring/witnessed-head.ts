import { errorMessage } from '@anchor/common/errors';
import {
  type Cosigner,
  noteKeyHash,
  openNote,
  parseCheckpoint,
  parseNote,
  verifyCosignatures,
} from '@anchor/common/tlog';
import type { SignedTreeHead } from '@anchor/common/vct';

/** The witnesses a monitor knows (their cosignature/v1 keys) and how many must have cosigned a head. */
export interface WitnessPolicy {
  cosigners: readonly Cosigner[];
  quorum: number;
}

/**
 * Why a tree head is not to be trusted under a k-of-n witness policy, or undefined: the log's C2SP checkpoint
 * must be signed by the log's key (its WebFinger key under the checkpoint's origin), be this very head (size
 * and root), and carry valid cosignatures of at least `quorum` of the known witnesses. Pure.
 */
export function witnessedHeadProblem(
  note: string,
  logPublicKey: Buffer,
  sth: Pick<SignedTreeHead, 'tree_size' | 'sha256_root_hash'>,
  policy: WitnessPolicy,
): string | undefined {
  let text: string;
  let unverified;
  try {
    const origin = parseCheckpoint(parseNote(note).text).origin;
    const opened = openNote(note, [
      { name: origin, keyHash: noteKeyHash(origin, logPublicKey), publicKey: logPublicKey },
    ]);
    text = opened.text;
    unverified = opened.unverified;
  } catch (error) {
    return `its checkpoint is no checkpoint signed by the log's key: ${errorMessage(error)}`;
  }
  const checkpoint = parseCheckpoint(text);
  if (checkpoint.size !== sth.tree_size || checkpoint.rootHash.toString('base64') !== sth.sha256_root_hash)
    return `the log's checkpoint is of size ${checkpoint.size}, not this tree head of size ${sth.tree_size}: no cosignature vouches for the head`;
  let cosigned;
  try {
    cosigned = verifyCosignatures(text, unverified, policy.cosigners);
  } catch (error) {
    return `its checkpoint carries a bad cosignature: ${errorMessage(error)}`;
  }
  if (cosigned.length >= policy.quorum) return undefined;
  const names = cosigned.map((c) => c.name);
  return `cosigned by ${cosigned.length} of the ${policy.cosigners.length} known witnesses${names.length ? ` (${names.join(', ')})` : ''}, ${policy.quorum} required`;
}
