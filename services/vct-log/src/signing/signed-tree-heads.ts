import { errorMessage } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import { treeHeadSignaturePayload } from '@anchor/common/vct';
import type { TreeHead } from '../merkle-log/transparency-log.js';
import type { LogSigner } from './log-signer.js';
import type { TreeHighWater } from './tree-high-water.js';

const log = getLogger('vct-log');

/**
 * get-sth bodies, signed once per tree head and reused until the head changes (a verifier cannot tell a
 * reused signature from a fresh one, and ECDSA signing, or a kms round trip, is not free).
 * Requests that arrive while a head is being signed share that signature. A head is recorded as the
 * alias's high-water mark before its signature is served, so no monitor holds a head the log forgot.
 */
export class SignedTreeHeads {
  private readonly cache = new Map<string, { size: number; timestamp: number; body: Promise<string> }>();

  constructor(
    private readonly signer: LogSigner,
    private readonly highWater: TreeHighWater,
  ) {}

  /** `{"tree_size","timestamp","sha256_root_hash","tree_head_signature"}` as JSON text with its newline. */
  body(alias: string, head: TreeHead): Promise<string> {
    const cached = this.cache.get(alias);
    if (cached && cached.size === head.size && cached.timestamp === head.timestamp) return cached.body;
    const body = this.sign(alias, head);
    const entry = { size: head.size, timestamp: head.timestamp, body };
    this.cache.set(alias, entry);
    // A failed signature (kms unreachable) is not kept: the next request tries again.
    body.catch(() => {
      if (this.cache.get(alias) === entry) this.cache.delete(alias);
    });
    return body;
  }

  private async sign(alias: string, head: TreeHead): Promise<string> {
    const signature = await this.signer.signEnvelope(treeHeadSignaturePayload(head.timestamp, head.size, head.root));
    // The head itself is durable in the database; a mark that cannot be written (a full disk) is said, and
    // the next head tries again, rather than stopping get-sth while the log is otherwise read-only.
    await this.highWater.raise(alias, head).catch((error: unknown) =>
      log.warn('cannot record the tree high-water mark; the head is served without it', {
        alias,
        size: head.size,
        file: this.highWater.file,
        err: errorMessage(error),
      }),
    );
    return `${JSON.stringify({ tree_size: head.size, timestamp: head.timestamp, sha256_root_hash: head.root.toString('base64'), tree_head_signature: signature })}\n`;
  }
}
