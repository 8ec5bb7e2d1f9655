import { createPublicKey, verify } from 'node:crypto';
import { KeyPair } from '@anchor/common/crypto';
import { canonicalize as jcs } from '@anchor/common/encoding';

/**
 * What a VCT log signs when it accepts a credential (vct-kms.md §A.5-A.6), rebuilt on the client side from
 * the credential it sent and the timestamp it got back: `JCS({svct_version:0, signature_type:100, timestamp,
 * entry_type:100, vc_entry: base64(N-Quads of the credential without proof), extensions:null})`.
 */
export function vcTimestampSignaturePayload(timestamp: number, nquads: string): Buffer {
  return Buffer.from(
    jcs({
      svct_version: 0,
      signature_type: 100,
      timestamp,
      entry_type: 100,
      vc_entry: Buffer.from(nquads, 'utf8').toString('base64'),
      extensions: null,
    }),
    'utf8',
  );
}

interface DigitallySigned {
  algorithm?: { signature?: unknown; type?: unknown };
  signature?: unknown;
}

/**
 * Verifies the log's `signature` (base64 of its `DigitallySigned` JSON) over `payload` with the public key
 * bytes the log publishes through WebFinger. The key type the envelope names decides how the key bytes
 * and the signature are read: `ED25519` (raw key), `ECDSAP256IEEEP1363` (uncompressed point, r||s), or the
 * DER forms (SPKI key, DER signature) a cloud KMS produces. Returns a reason when it does not verify.
 */
export function logSignatureProblem(signatureBase64: string, payload: Uint8Array, publicKey: Uint8Array): string | undefined {
  let envelope: DigitallySigned;
  try {
    envelope = JSON.parse(Buffer.from(signatureBase64, 'base64').toString('utf8')) as DigitallySigned;
  } catch {
    return 'the log signature is not base64 of a JSON envelope';
  }
  const type = envelope.algorithm?.type;
  if (typeof envelope.signature !== 'string') return 'the log signature envelope has no signature';
  const signature = Buffer.from(envelope.signature, 'base64');
  try {
    switch (type) {
      case 'ED25519':
        return KeyPair.fromPublicKeyBytes('Ed25519', publicKey).verify(payload, signature) ? undefined : 'the Ed25519 log signature does not verify';
      case 'ECDSAP256IEEEP1363':
        return KeyPair.fromPublicKeyBytes('P-256', publicKey).verify(payload, signature) ? undefined : 'the ECDSA P-256 log signature does not verify';
      case 'ECDSAP256DER':
      case 'ECDSAP384DER': {
        const key = createPublicKey({ key: Buffer.from(publicKey), format: 'der', type: 'spki' });
        const hash = type === 'ECDSAP384DER' ? 'sha384' : 'sha256';
        return verify(hash, payload, { key, dsaEncoding: 'der' }, signature) ? undefined : `the ${String(type)} log signature does not verify`;
      }
      default:
        return `unsupported log signature key type ${JSON.stringify(type)}`;
    }
  } catch (error) {
    return `the log public key cannot verify ${String(type)} signatures: ${(error as Error).message}`;
  }
}
