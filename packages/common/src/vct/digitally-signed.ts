import { createHash, createPublicKey, verify } from 'node:crypto';
import { KeyPair } from '../crypto/index.js';
import { base64Decode } from '../encoding/index.js';

/** Key types a log of this project signs with. */
export type LogKeyType = 'Ed25519' | 'P-256';

/**
 * The `algorithm` member of trustbloc/vct's `DigitallySigned` envelope: the signature family and the aries
 * key type name a Go client hands to `PubKeyBytesToHandle`. `ED25519`: raw 32-byte key, pure Ed25519.
 * `ECDSAP256IEEEP1363`: 65-byte uncompressed point, raw `r || s` over SHA-256. The DER types (SPKI key,
 * DER signature) are what a cloud KMS behind trustbloc/vct produces; they are verified, never produced.
 */
export interface SignatureAlgorithm {
  signature: 'EDDSA' | 'ECDSA';
  type: 'ED25519' | 'ECDSAP256IEEEP1363' | 'ECDSAP256DER' | 'ECDSAP384DER';
}

const ALGORITHM_OF_KEY: Readonly<Record<LogKeyType, SignatureAlgorithm>> = {
  Ed25519: { signature: 'EDDSA', type: 'ED25519' },
  'P-256': { signature: 'ECDSA', type: 'ECDSAP256IEEEP1363' },
};

/** `{"algorithm":{"signature","type"},"signature":"<base64>"}`: the JSON a log's signatures are served as, base64-encoded. */
export interface DigitallySigned {
  algorithm: SignatureAlgorithm;
  /** base64 of the signature bytes. */
  signature: string;
}

/** The envelope algorithm a log key signs with; throws for key types a log cannot use. */
export function signatureAlgorithmOf(keyType: string): SignatureAlgorithm {
  const algorithm = ALGORITHM_OF_KEY[keyType as LogKeyType];
  if (algorithm === undefined) throw new Error(`a log key must be Ed25519 or P-256, not ${keyType}`);
  return algorithm;
}

/** The log id: SHA-256 of the public key bytes the log publishes (add-vc's `id` is its base64). */
export function logIdOf(publicKeyBytes: Uint8Array): Buffer {
  return createHash('sha256').update(publicKeyBytes).digest();
}

/**
 * base64 of the `DigitallySigned` JSON over `payload`: the form of add-vc's `signature` and get-sth's
 * `tree_head_signature`. The envelope is Go's `json.Marshal` of the struct (members in declaration order),
 * not JCS.
 */
export function signEnvelope(key: KeyPair, payload: Uint8Array): string {
  return envelopeOf(key.type, key.sign(payload));
}

/** The same envelope around a signature made elsewhere (a `Signer`, e.g. a kms key) by a key of `keyType`. */
export function envelopeOf(keyType: string, signatureBytes: Uint8Array): string {
  const { signature, type } = signatureAlgorithmOf(keyType);
  const envelope = { algorithm: { signature, type }, signature: Buffer.from(signatureBytes).toString('base64') };
  return Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64');
}

/**
 * Why a log's signature (base64 of its `DigitallySigned` JSON) does not verify over `payload` with the
 * public key bytes the log publishes, or undefined when it does. As trustbloc/vct's client does, the envelope's
 * key type decides how the key bytes and the signature are read.
 */
export function envelopeProblem(
  envelopeBase64: string,
  payload: Uint8Array,
  publicKeyBytes: Uint8Array,
): string | undefined {
  let envelope: { algorithm?: { type?: unknown }; signature?: unknown };
  try {
    envelope = JSON.parse(base64Decode(envelopeBase64).toString('utf8')) as typeof envelope;
  } catch {
    return 'the log signature is not base64 of a JSON envelope';
  }
  if (typeof envelope !== 'object' || envelope === null) return 'the log signature is not base64 of a JSON envelope';
  if (typeof envelope.signature !== 'string') return 'the log signature envelope has no signature';
  const type = envelope.algorithm?.type;
  let signature: Buffer;
  try {
    signature = base64Decode(envelope.signature);
  } catch {
    return 'the log signature is not base64';
  }
  try {
    switch (type) {
      case 'ED25519':
        return KeyPair.fromPublicKeyBytes('Ed25519', publicKeyBytes).verify(payload, signature)
          ? undefined
          : 'the Ed25519 log signature does not verify';
      case 'ECDSAP256IEEEP1363':
        return KeyPair.fromPublicKeyBytes('P-256', publicKeyBytes).verify(payload, signature)
          ? undefined
          : 'the ECDSA P-256 log signature does not verify';
      case 'ECDSAP256DER':
      case 'ECDSAP384DER': {
        const key = createPublicKey({ key: Buffer.from(publicKeyBytes), format: 'der', type: 'spki' });
        const hash = type === 'ECDSAP384DER' ? 'sha384' : 'sha256';
        return verify(hash, payload, { key, dsaEncoding: 'der' }, signature)
          ? undefined
          : `the ${type} log signature does not verify`;
      }
      default:
        return `unsupported log signature key type ${JSON.stringify(type)}`;
    }
  } catch (error) {
    return `the log public key cannot verify ${String(type)} signatures: ${(error as Error).message}`;
  }
}

/** Whether a log's signature verifies (see `envelopeProblem` for the reason when it does not). */
export function verifyEnvelope(envelopeBase64: string, payload: Uint8Array, publicKeyBytes: Uint8Array): boolean {
  return envelopeProblem(envelopeBase64, payload, publicKeyBytes) === undefined;
}
