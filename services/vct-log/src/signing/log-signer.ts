import { createHash } from 'node:crypto';
import { KeyPair } from '@anchor/common/crypto';
import { base64Decode } from '@anchor/common/encoding';

/** Key types a log may sign with (one key per deployment, shared by every alias). */
export type LogKeyType = 'Ed25519' | 'P-256';
export const LOG_KEY_TYPES: readonly LogKeyType[] = ['Ed25519', 'P-256'];

/**
 * The `algorithm` member of the original's `DigitallySigned` envelope: the signature family and the aries
 * key type name a Go client hands to `PubKeyBytesToHandle`. P-256 signatures are raw `r || s` (IEEE P1363)
 * over SHA-256 and the public key is the 65-byte uncompressed point; Ed25519 keys are the raw 32 bytes.
 */
export interface SignatureAlgorithm {
  signature: 'EDDSA' | 'ECDSA';
  type: 'ED25519' | 'ECDSAP256IEEEP1363';
}

const ALGORITHMS: Readonly<Record<LogKeyType, SignatureAlgorithm>> = {
  Ed25519: { signature: 'EDDSA', type: 'ED25519' },
  'P-256': { signature: 'ECDSA', type: 'ECDSAP256IEEEP1363' },
};

const KEY_TYPE_OF_ALGORITHM: Readonly<Record<string, LogKeyType>> = { ED25519: 'Ed25519', ECDSAP256IEEEP1363: 'P-256' };

export interface DigitallySigned {
  algorithm: SignatureAlgorithm;
  /** base64 of the signature bytes. */
  signature: string;
}

/**
 * Signs the log's payloads and names the log: `id` = SHA-256 of the public key bytes, published with the
 * key itself through WebFinger.
 */
export class LogSigner {
  readonly keyType: LogKeyType;
  readonly algorithm: SignatureAlgorithm;
  readonly publicKeyBytes: Buffer;
  readonly logId: Buffer;
  readonly logIdBase64: string;

  constructor(private readonly key: KeyPair) {
    if (key.type !== 'Ed25519' && key.type !== 'P-256') throw new Error(`a log key must be Ed25519 or P-256, not ${key.type}`);
    if (!key.isPrivate) throw new Error('the log key must include its private half');
    this.keyType = key.type;
    this.algorithm = ALGORITHMS[key.type];
    this.publicKeyBytes = key.publicKeyBytes();
    this.logId = createHash('sha256').update(this.publicKeyBytes).digest();
    this.logIdBase64 = this.logId.toString('base64');
  }

  /**
   * base64 of the `DigitallySigned` JSON over `payload`: the form of add-vc's `signature` and get-sth's
   * `tree_head_signature`. The envelope is Go's `json.Marshal` of the struct (members in declaration
   * order), not JCS.
   */
  signEnvelope(payload: Uint8Array): string {
    const envelope = { algorithm: { signature: this.algorithm.signature, type: this.algorithm.type }, signature: this.key.sign(payload).toString('base64') };
    return Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64');
  }

  /** A self-check for the health endpoint: the key signs, and the signature verifies. */
  selfTest(): void {
    const probe = Buffer.from('vct-log key check');
    if (!this.key.verify(probe, this.key.sign(probe))) throw new Error('the log key produced a signature that does not verify');
  }
}

/**
 * Verifies a `DigitallySigned` envelope (base64 of its JSON, as served) against a public key published by
 * WebFinger, as a client of the log does. False for anything malformed.
 */
export function verifyEnvelope(envelopeBase64: string, payload: Uint8Array, publicKeyBytes: Uint8Array): boolean {
  try {
    const envelope = JSON.parse(base64Decode(envelopeBase64).toString('utf8')) as DigitallySigned;
    const keyType = KEY_TYPE_OF_ALGORITHM[envelope.algorithm?.type];
    if (keyType === undefined || envelope.algorithm.signature !== ALGORITHMS[keyType].signature) return false;
    return KeyPair.fromPublicKeyBytes(keyType, publicKeyBytes).verify(payload, base64Decode(envelope.signature));
  } catch {
    return false;
  }
}
