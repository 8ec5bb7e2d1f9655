import { treeHeadSignaturePayload } from '@anchor/common/vct';
import type { TreeHead } from '../merkle-log/transparency-log.js';
import type { LogSigner } from './log-signer.js';

/**
 * get-sth bodies, signed once per tree head and reused until the head changes (the original signed on
 * every request; a verifier cannot tell the difference, and ECDSA signing is not free).
 */
export class SignedTreeHeads {
  private readonly cache = new Map<string, { size: number; timestamp: number; body: string }>();

  constructor(private readonly signer: LogSigner) {}

  /** `{"tree_size","timestamp","sha256_root_hash","tree_head_signature"}` as JSON text with its newline. */
  body(alias: string, head: TreeHead): string {
    const cached = this.cache.get(alias);
    if (cached && cached.size === head.size && cached.timestamp === head.timestamp) return cached.body;
    const signature = this.signer.signEnvelope(treeHeadSignaturePayload(head.timestamp, head.size, head.root));
    const body = `${JSON.stringify({ tree_size: head.size, timestamp: head.timestamp, sha256_root_hash: head.root.toString('base64'), tree_head_signature: signature })}\n`;
    this.cache.set(alias, { size: head.size, timestamp: head.timestamp, body });
    return body;
  }
}
