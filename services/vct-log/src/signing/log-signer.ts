import { connectKms, openKmsSigner, type KmsSettings } from '@anchor/common/clients';
import { KeyPair, localSigner, type Signer } from '@anchor/common/crypto';
import { errorMessage } from '@anchor/common/errors';
import {
  envelopeOf,
  logIdOf,
  signatureAlgorithmOf,
  type LogKeyType,
  type SignatureAlgorithm,
} from '@anchor/common/vct';

/**
 * What a worker thread needs to sign as the log: the local key's PKCS#8 PEM, or where the key is in the kms
 * and the CA certificates its https is trusted with (each worker then signs through the kms itself).
 */
export type LogSignerSetup = { pem: string } | { kms: KmsSettings & { keyId: string }; ca?: string[] };

/**
 * The log's signing key (one per deployment, shared by every alias), local or in the kms: signs the log's
 * payloads in the VCT `DigitallySigned` envelope (`@anchor/common/vct`) and names the log: `id` = SHA-256 of
 * the public key bytes, published with the key itself through WebFinger.
 */
export class LogSigner {
  readonly keyType: LogKeyType;
  readonly algorithm: SignatureAlgorithm;
  readonly publicKeyBytes: Buffer;
  readonly logId: Buffer;
  readonly logIdBase64: string;

  private constructor(
    private readonly signer: Signer,
    /** How worker threads make the same signer. */
    readonly setup: LogSignerSetup,
    private readonly kmsHealth?: () => Promise<string>,
    private readonly release?: () => void,
  ) {
    this.algorithm = signatureAlgorithmOf(signer.type);
    this.keyType = signer.type as LogKeyType;
    this.publicKeyBytes = signer.publicKey.publicKeyBytes();
    this.logId = logIdOf(this.publicKeyBytes);
    this.logIdBase64 = this.logId.toString('base64');
  }

  /** A log key held in this process. */
  static local(key: KeyPair): LogSigner {
    signatureAlgorithmOf(key.type);
    if (!key.isPrivate) throw new Error('the log key must include its private half');
    return new LogSigner(localSigner(key), { pem: key.privateKeyPem() });
  }

  /**
   * The log key in the kms: `settings.keyId`, or the id `remembered` in the log's database, or a new key of
   * `keyType` (default Ed25519) created in the keystore and offered to `remember` (insert-if-absent).
   */
  static async kms(
    settings: KmsSettings,
    options: {
      keyType?: LogKeyType | undefined;
      remembered: () => Promise<string | undefined>;
      remember: (keyId: string) => Promise<string>;
      /** Trusted besides Node's bundled roots (`--tls-cacerts`). */
      ca?: readonly (string | Buffer)[] | undefined;
    },
  ): Promise<LogSigner> {
    // PEM text crosses to the worker threads as is (a Buffer would arrive as a plain Uint8Array).
    const ca = options.ca?.map((certificate) => certificate.toString());
    const connection = connectKms(settings, ca && ca.length > 0 ? { tls: { ca } } : {});
    try {
      const signer = await openKmsSigner(connection.keystore, {
        keyId: settings.keyId,
        keyType: options.keyType ?? 'Ed25519',
        accept: options.keyType ? [options.keyType] : ['Ed25519', 'P-256'],
        remembered: options.remembered,
        remember: options.remember,
      });
      return new LogSigner(
        signer,
        { kms: { ...settings, keyId: signer.keyId }, ...(ca && ca.length > 0 ? { ca } : {}) },
        () => signer.health(),
        () => connection.close(),
      );
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  /** The signer a worker thread makes from the main thread's `setup`. */
  static async fromSetup(setup: LogSignerSetup): Promise<LogSigner> {
    if ('pem' in setup) return LogSigner.local(KeyPair.fromPem(setup.pem));
    return LogSigner.kms(setup.kms, {
      remembered: async () => setup.kms.keyId,
      remember: async (keyId) => keyId,
      ca: setup.ca,
    });
  }

  /** base64 of the `DigitallySigned` JSON over `payload` (add-vc's `signature`, get-sth's `tree_head_signature`). */
  async signEnvelope(payload: Uint8Array): Promise<string> {
    return envelopeOf(this.keyType, await this.signer.sign(payload));
  }

  /** The bare signature over `message` (a C2SP checkpoint note's text; Ed25519 keys only sign those). */
  signRaw(message: Uint8Array): Promise<Uint8Array> {
    return Promise.resolve(this.signer.sign(message));
  }

  /**
   * `kmsStatus` of the health check: with the kms, one call about the key (reachable, authorised, not
   * rotated); with a local key, a signature that verifies.
   */
  async health(): Promise<string> {
    if (this.kmsHealth) return this.kmsHealth();
    try {
      const probe = Buffer.from('vct-log key check');
      return this.signer.publicKey.verify(probe, Buffer.from(await this.signer.sign(probe)))
        ? 'success'
        : 'the log key produced a signature that does not verify';
    } catch (error) {
      return errorMessage(error);
    }
  }

  close(): void {
    this.release?.();
  }
}
