import { signDetachedJwsWith, verifyDetachedJws, type KeyPair, type KeyType, type Signer } from '../crypto/index.js';
import { multibaseDecode, multibaseEncode } from '../encoding/index.js';
import { CONTEXT_URLS } from './contexts.js';
import { isCryptosuite, type Cryptosuite, type DataIntegrityProof, type ProofType } from './proof-types.js';

/** How a suite turns the document and the proof options into text before hashing. */
export type Canonicalization = 'rdfc' | 'jcs';
export type HashAlgorithm = 'sha256' | 'sha384';

/**
 * What differs between the suites. Every one signs hash(canonical proof options) || hash(canonical
 * document); they differ in the canonicalisation (RDFC-1.0 or JCS), the hash (SHA-384 for P-384 keys in
 * the ecdsa suites, SHA-256 otherwise), where the signature goes and how it is encoded, which keys may make
 * it, and which contexts define the suite's terms.
 */
export interface Suite {
  type: ProofType;
  /** DataIntegrityProof only. */
  cryptosuite?: Cryptosuite;
  /** How errors name the suite: the cryptosuite of a DataIntegrityProof, otherwise the proof type. */
  name: string;
  canonicalization: Canonicalization;
  hashFor(keyType: KeyType): HashAlgorithm;
  /** The proof member that carries the signature. */
  signatureMember: 'proofValue' | 'jws';
  /** The suite context added to a document that has none of `compatibleContexts`. */
  contextUrl: string;
  /** Contexts that already define the suite's terms. */
  compatibleContexts: readonly string[];
  keyTypes: readonly KeyType[];
  sign(hashData: Uint8Array, signer: Signer): Promise<string>;
  /** False for a wrong or malformed signature; never throws for bad input. */
  verify(hashData: Uint8Array, signature: unknown, key: KeyPair): boolean;
}

const SHA256 = (): HashAlgorithm => 'sha256';

/** IEEE P1363 r||s lengths: Ed25519 64, P-256 64, P-384 96. */
const SIGNATURE_LENGTHS: Partial<Record<KeyType, number>> = { Ed25519: 64, 'P-256': 64, 'P-384': 96 };

/** A signature as a multibase base58btc `proofValue` (Ed25519Signature2020 and the Data Integrity suites). */
function base58btcSignature(hashData: Uint8Array, proofValue: unknown, key: KeyPair): boolean {
  // base58btc ('z') is the only proofValue encoding these suites allow.
  if (typeof proofValue !== 'string' || !proofValue.startsWith('z')) return false;
  let signature: Buffer;
  try {
    signature = multibaseDecode(proofValue);
  } catch {
    return false;
  }
  return signature.length === SIGNATURE_LENGTHS[key.type] && key.verify(hashData, signature);
}

const signBase58btc = async (hashData: Uint8Array, signer: Signer): Promise<string> =>
  multibaseEncode(await signer.sign(hashData), 'base58btc');

const ed25519Signature2020: Suite = {
  type: 'Ed25519Signature2020',
  name: 'Ed25519Signature2020',
  canonicalization: 'rdfc',
  hashFor: SHA256,
  signatureMember: 'proofValue',
  contextUrl: CONTEXT_URLS.ed25519Signature2020V1,
  compatibleContexts: [CONTEXT_URLS.ed25519Signature2020V1],
  keyTypes: ['Ed25519'],
  sign: signBase58btc,
  verify: base58btcSignature,
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
    name: type,
    canonicalization: 'rdfc',
    hashFor: SHA256,
    signatureMember: 'jws',
    contextUrl,
    compatibleContexts,
    keyTypes,
    sign: (hashData, signer) => signDetachedJwsWith(hashData, signer),
    verify(hashData, jws, key) {
      if (typeof jws !== 'string') return false;
      try {
        return verifyDetachedJws(jws, hashData, key);
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

/**
 * The W3C cryptosuites (vc-di-eddsa, vc-di-ecdsa): a `DataIntegrityProof` naming the suite in `cryptosuite`,
 * the signature a base58btc `proofValue`. The ecdsa suites hash with SHA-384 for P-384 keys.
 */
function dataIntegritySuite(cryptosuite: Cryptosuite, keyTypes: readonly KeyType[]): Suite {
  return {
    type: 'DataIntegrityProof',
    cryptosuite,
    name: cryptosuite,
    canonicalization: cryptosuite.includes('-jcs-') ? 'jcs' : 'rdfc',
    hashFor: (keyType) => (keyType === 'P-384' ? 'sha384' : 'sha256'),
    signatureMember: 'proofValue',
    contextUrl: CONTEXT_URLS.dataIntegrityV2,
    // credentials/v2 defines DataIntegrityProof and its members.
    compatibleContexts: [CONTEXT_URLS.dataIntegrityV2, CONTEXT_URLS.credentialsV2],
    keyTypes,
    sign: signBase58btc,
    verify: base58btcSignature,
  };
}

const DATA_INTEGRITY_SUITES: Readonly<Record<Cryptosuite, Suite>> = {
  'eddsa-rdfc-2022': dataIntegritySuite('eddsa-rdfc-2022', ['Ed25519']),
  'eddsa-jcs-2022': dataIntegritySuite('eddsa-jcs-2022', ['Ed25519']),
  'ecdsa-rdfc-2019': dataIntegritySuite('ecdsa-rdfc-2019', ['P-256', 'P-384']),
  'ecdsa-jcs-2019': dataIntegritySuite('ecdsa-jcs-2019', ['P-256', 'P-384']),
};

const LEGACY_SUITES: Readonly<Record<Exclude<ProofType, 'DataIntegrityProof'>, Suite>> = {
  Ed25519Signature2020: ed25519Signature2020,
  Ed25519Signature2018: ed25519Signature2018,
  JsonWebSignature2020: jsonWebSignature2020,
};

/**
 * The suite of a proof type (and, for DataIntegrityProof, its cryptosuite), or why there is none. A
 * cryptosuite on any other type is refused rather than ignored, so a proof never means two things.
 */
export function suiteFor(type: ProofType, cryptosuite?: unknown): Suite | { error: string } {
  if (type === 'DataIntegrityProof') {
    if (cryptosuite === undefined) return { error: 'a DataIntegrityProof needs a cryptosuite' };
    if (!isCryptosuite(cryptosuite)) return { error: `unsupported cryptosuite ${JSON.stringify(cryptosuite)}` };
    return DATA_INTEGRITY_SUITES[cryptosuite];
  }
  if (cryptosuite !== undefined) return { error: `a ${type} proof takes no cryptosuite` };
  return LEGACY_SUITES[type];
}

/** The proof without its signature: what the proof-options canonical form is computed over. */
export function proofOptionsOf(proof: DataIntegrityProof): Record<string, unknown> {
  const { proofValue: _proofValue, jws: _jws, signatureValue: _signatureValue, ...options } = proof;
  return options;
}
