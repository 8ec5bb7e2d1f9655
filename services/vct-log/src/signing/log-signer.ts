import type { KeyPair } from '@anchor/common/crypto';
import {
  logIdOf,
  signatureAlgorithmOf,
  signEnvelope,
  type LogKeyType,
  type SignatureAlgorithm,
} from '@anchor/common/vct';

/**
 * The log's signing key (one per deployment, shared by every alias): signs the log's payloads in the VCT
 * `DigitallySigned` envelope (`@anchor/common/vct`) and names the log: `id` = SHA-256 of the public key
 * bytes, published with the key itself through WebFinger.
 */
export class LogSigner {
  readonly keyType: LogKeyType;
  readonly algorithm: SignatureAlgorithm;
  readonly publicKeyBytes: Buffer;
  readonly logId: Buffer;
  readonly logIdBase64: string;

  constructor(private readonly key: KeyPair) {
    this.algorithm = signatureAlgorithmOf(key.type);
    if (!key.isPrivate) throw new Error('the log key must include its private half');
    this.keyType = key.type as LogKeyType;
    this.publicKeyBytes = key.publicKeyBytes();
    this.logId = logIdOf(this.publicKeyBytes);
    this.logIdBase64 = this.logId.toString('base64');
  }

  /** base64 of the `DigitallySigned` JSON over `payload` (add-vc's `signature`, get-sth's `tree_head_signature`). */
  signEnvelope(payload: Uint8Array): string {
    return signEnvelope(this.key, payload);
  }

  /** A self-check for the health endpoint: the key signs, and the signature verifies. */
  selfTest(): void {
    const probe = Buffer.from('vct-log key check');
    if (!this.key.verify(probe, this.key.sign(probe)))
      throw new Error('the log key produced a signature that does not verify');
  }
}
