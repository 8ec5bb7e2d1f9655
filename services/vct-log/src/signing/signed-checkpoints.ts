import { errorMessage, notFound } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import { formatCheckpoint, noteKeyHash, signNote, ed25519VerifierKey } from '@anchor/common/tlog';
import type { TreeHead } from '../merkle-log/transparency-log.js';
import type { LogSigner } from './log-signer.js';
import type { TreeHighWater } from './tree-high-water.js';

const log = getLogger('vct-log');

/**
 * C2SP checkpoints (signed notes) of each alias's head, signed with the log's Ed25519 key under the alias's
 * origin, once per head and reused until it changes (as `SignedTreeHeads`). A checkpoint is a signed head
 * too, so the head is recorded as the alias's high-water mark before its checkpoint is served.
 */
export class SignedCheckpoints {
  private readonly cache = new Map<string, { size: number; timestamp: number; note: Promise<string> }>();

  constructor(
    private readonly signer: LogSigner,
    private readonly highWater: TreeHighWater,
    /** The origin line of an alias's checkpoints (also the note key's name). */
    readonly originOf: (alias: string) => string,
  ) {}

  /** The note verifier key (`<origin>+<hash>+<key>`) a client opens the alias's checkpoints with. */
  verifierKey(alias: string): string {
    this.requireEd25519();
    return ed25519VerifierKey(this.originOf(alias), this.signer.publicKeyBytes);
  }

  note(alias: string, head: TreeHead): Promise<string> {
    this.requireEd25519();
    const cached = this.cache.get(alias);
    if (cached && cached.size === head.size && cached.timestamp === head.timestamp) return cached.note;
    const note = this.sign(alias, head);
    const entry = { size: head.size, timestamp: head.timestamp, note };
    this.cache.set(alias, entry);
    // A failed signature (kms unreachable) is not kept: the next request tries again.
    note.catch(() => {
      if (this.cache.get(alias) === entry) this.cache.delete(alias);
    });
    return note;
  }

  private requireEd25519(): void {
    // Signed notes carry Ed25519 signatures only (c2sp.org/signed-note); the v1 API serves a P-256 log as before.
    if (this.signer.keyType !== 'Ed25519')
      throw notFound(
        `no checkpoint: C2SP checkpoints are signed with Ed25519 and this log's key is ${this.signer.keyType} (the v1 API and the tiles are served)`,
      );
  }

  private async sign(alias: string, head: TreeHead): Promise<string> {
    const origin = this.originOf(alias);
    const text = formatCheckpoint({ origin, size: head.size, rootHash: head.root });
    const keyHash = noteKeyHash(origin, this.signer.publicKeyBytes);
    const note = await signNote(text, [{ name: origin, keyHash, sign: (message) => this.signer.signRaw(message) }]);
    // As SignedTreeHeads: a mark that cannot be written is said, and the checkpoint served without it.
    await this.highWater.raise(alias, head).catch((error: unknown) =>
      log.warn('cannot record the tree high-water mark; the checkpoint is served without it', {
        alias,
        size: head.size,
        file: this.highWater.file,
        err: errorMessage(error),
      }),
    );
    return note;
  }
}
