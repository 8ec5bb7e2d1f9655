import { signDetachedJwsWith, verifyDetachedJws, type KeyPair, type KeyType, type Signer } from '../crypto/index.js';
import { multibaseDecode, multibaseEncode } from '../encoding/index.js';
import { CONTEXT_URLS } from './contexts.js';
import type { DataIntegrityProof, ProofType } from './proof-types.js';

/**
 * What differs between the three suites once the data to sign is computed (they all sign
 * SHA-256(c14n proof options) || SHA-256(c14n document)): where the signature goes, how it is encoded,
 * which keys may make it, and which contexts define the suite's terms.
 */
export interface Suite {
  type: ProofType;
  /** The proof member that carries the signature. */
  signatureMember: 'proofValue' | 'jws';
  /** The suite context added to a document that has none of `compatibleContexts`. */
  contextUrl: string;
  /** Contexts that already define the suite's terms. */
  compatibleContexts: readonly string[];
  keyTypes: readonly KeyType[];
  sign(verifyData: Uint8Array, signer: Signer): Promise<string>;
  /** False for a wrong or malformed signature; never throws for bad input. */
  verify(verifyData: Uint8Array, signature: unknown, key: KeyPair): boolean;
}

const ED25519_SIGNATURE_LENGTH = 64;

const ed25519Signature2020: Suite = {
  type: 'Ed25519Signature2020',
  signatureMember: 'proofValue',
  contextUrl: CONTEXT_URLS.ed25519Signature2020V1,
  compatibleContexts: [CONTEXT_URLS.ed25519Signature2020V1],
  keyTypes: ['Ed25519'],
  sign: async (verifyData, signer) => multibaseEncode(await signer.sign(verifyData), 'base58btc'),
  verify(verifyData, proofValue, key) {
    // Only base58btc ('z') is a valid proofValue encoding for this suite.
    if (typeof proofValue !== 'string' || !proofValue.startsWith('z')) return false;
    let signature: Buffer;
    try {
      signature = multibaseDecode(proofValue);
    } catch {
      return false;
    }
    return signature.length === ED25519_SIGNATURE_LENGTH && key.verify(verifyData, signature);
  },
};

/** Ed25519Signature2018 and JsonWebSignature2020 share the detached-JWS (b64 false) signature form. */
function detachedJwsSuite(
  type: ProofType,
  contextUrl: string,
  compatibleContexts: readonly string[],
  keyTypes: readonly KeyType[],
): Suite {
  return {
    type,
    signatureMember: 'jws',
    contextUrl,
    compatibleContexts,
    keyTypes,
    sign: (verifyData, signer) => signDetachedJwsWith(verifyData, signer),
    verify(verifyData, jws, key) {
      if (typeof jws !== 'string') return false;
      try {
        return verifyDetachedJws(jws, verifyData, key);
      } catch {
        return false;
      }
    },
  };
}

const ed25519Signature2018 = detachedJwsSuite(
  'Ed25519Signature2018',
  CONTEXT_URLS.ed25519Signature2018V1,
  // credentials/v1 and security/v2 define Ed25519Signature2018 themselves (and clash with the suite context).
  [
    CONTEXT_URLS.ed25519Signature2018V1,
    CONTEXT_URLS.ed25519Signature2020V1,
    CONTEXT_URLS.credentialsV1,
    CONTEXT_URLS.securityV2,
  ],
  ['Ed25519'],
);

const jsonWebSignature2020 = detachedJwsSuite(
  'JsonWebSignature2020',
  CONTEXT_URLS.jws2020V1,
  [CONTEXT_URLS.jws2020V1],
  ['Ed25519', 'P-256', 'P-384', 'secp256k1'],
);

const SUITES: Readonly<Record<ProofType, Suite>> = {
  Ed25519Signature2020: ed25519Signature2020,
  Ed25519Signature2018: ed25519Signature2018,
  JsonWebSignature2020: jsonWebSignature2020,
};

export function suiteFor(type: ProofType): Suite {
  return SUITES[type];
}

/** The proof without its signature: what the proof-options canonical form is computed over. */
export function proofOptionsOf(proof: DataIntegrityProof): Record<string, unknown> {
  const { proofValue: _proofValue, jws: _jws, signatureValue: _signatureValue, ...options } = proof;
  return options;
}
