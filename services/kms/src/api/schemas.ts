import { defineSchema, type Schema } from '@anchor/common/schemas';
import { KEY_TYPES } from '../crypto/index.js';

/** A binary field: padded base64url, trustbloc/kms's wire format (Go `base64.URLEncoding`); decoded by the handler. */
const bytes = (description: string) => ({ type: 'string', description: `${description} (base64url with padding)` });
const bytesList = (description: string) => ({
  type: 'array',
  items: { type: 'string' },
  description: `${description} (each base64url with padding)`,
});
const keyVersion = {
  type: 'integer',
  minimum: 1,
  description: 'the key version to use; without it each version is tried, newest first',
};
const keyType = { enum: [...KEY_TYPES], description: 'a key type as aries spells it (`kms.KeyType`)' };

// Unknown members are allowed: trustbloc/kms clients send some this service ignores (`senderKID`, `vaultID`).
const object = (id: string, properties: Record<string, unknown>, required: string[]) =>
  defineSchema({ $id: `https://anchor.example/kms/${id}.json`, type: 'object', properties, required });

export interface CreateKeystoreBody {
  controller: string;
}
export const CREATE_KEYSTORE = defineSchema<CreateKeystoreBody>(
  object(
    'create-keystore',
    { controller: { type: 'string', minLength: 1, description: 'the DID that controls the keystore' } },
    ['controller'],
  ),
);

export interface CreateKeyBody {
  keyType: string;
  export?: boolean;
}
export const CREATE_KEY = defineSchema<CreateKeyBody>(
  object('create-key', { keyType, export: { type: 'boolean', description: 'answer the public key too' } }, ['keyType']),
);

export interface ImportKeyBody {
  keyType: string;
  keyBytes?: string;
  jwk?: Record<string, unknown>;
  keyID?: string;
}
export const IMPORT_KEY = defineSchema<ImportKeyBody>(
  object(
    'import-key',
    {
      keyType,
      keyBytes: bytes('the private key: PKCS#8 DER, or the raw key of the symmetric and BBS types'),
      jwk: {
        type: 'object',
        description: 'instead of keyBytes: the private key as a JWK (`d` for asymmetric keys, `k` for symmetric ones)',
      },
      keyID: {
        type: 'string',
        pattern: '^[A-Za-z0-9._~-]{1,128}$',
        description: 'the key id to use (default: a random one)',
      },
    },
    ['keyType'],
  ),
);

export interface RotateKeyBody {
  export?: boolean;
}
export const ROTATE_KEY = defineSchema<RotateKeyBody>(
  object('rotate-key', { export: { type: 'boolean', description: 'answer the new public key too' } }, []),
);

export interface SignBody {
  message: string;
}
export const SIGN = defineSchema<SignBody>(object('sign', { message: bytes('the message') }, ['message']));

/** The most messages one `/signbatch` request signs: a bound on one request's work (1,000 Ed25519 signs: ~20 ms here). */
export const MAX_SIGN_BATCH = 1_000;

export interface SignBatchBody {
  messages: string[];
}
export const SIGN_BATCH = defineSchema<SignBatchBody>(
  object(
    'sign-batch',
    {
      messages: {
        ...bytesList('the messages, each signed on its own'),
        minItems: 1,
        maxItems: MAX_SIGN_BATCH,
      },
    },
    ['messages'],
  ),
);

export interface VerifyBody {
  signature: string;
  message: string;
  keyVersion?: number;
}
export const VERIFY = defineSchema<VerifyBody>(
  object('verify', { signature: bytes('the signature'), message: bytes('the message'), keyVersion }, [
    'signature',
    'message',
  ]),
);

export interface EncryptBody {
  message: string;
  aad?: string;
}
export const ENCRYPT = defineSchema<EncryptBody>(
  object('encrypt', { message: bytes('the plaintext'), aad: bytes('associated data') }, ['message']),
);

export interface DecryptBody {
  cipherText: string;
  nonce: string;
  aad?: string;
  keyVersion?: number;
}
export const DECRYPT = defineSchema<DecryptBody>(
  object(
    'decrypt',
    {
      cipherText: bytes('ciphertext and tag'),
      nonce: bytes('the nonce encrypt answered'),
      aad: bytes('associated data'),
      keyVersion,
    },
    ['cipherText', 'nonce'],
  ),
);

export interface ComputeMacBody {
  data: string;
}
export const COMPUTE_MAC = defineSchema<ComputeMacBody>(object('compute-mac', { data: bytes('the data') }, ['data']));

export interface VerifyMacBody {
  mac: string;
  data: string;
  keyVersion?: number;
}
export const VERIFY_MAC = defineSchema<VerifyMacBody>(
  object('verify-mac', { mac: bytes('the MAC'), data: bytes('the data'), keyVersion }, ['mac', 'data']),
);

export interface EasyBody {
  payload: string;
  nonce: string;
  theirPub: string;
}
export const EASY = defineSchema<EasyBody>(
  object(
    'easy',
    {
      payload: bytes('the message'),
      nonce: bytes('24-byte nonce'),
      theirPub: bytes("the recipient's X25519 public key"),
    },
    ['payload', 'nonce', 'theirPub'],
  ),
);

export interface EasyOpenBody {
  cipherText: string;
  nonce: string;
  theirPub: string;
  myPub: string;
}
export const EASY_OPEN = defineSchema<EasyOpenBody>(
  object(
    'easy-open',
    {
      cipherText: bytes('the box'),
      nonce: bytes('24-byte nonce'),
      theirPub: bytes("the sender's X25519 public key"),
      myPub: bytes("the recipient's ED25519 public key: names the keystore's key"),
    },
    ['cipherText', 'nonce', 'theirPub', 'myPub'],
  ),
);

export interface SealOpenBody {
  cipherText: string;
  myPub: string;
}
export const SEAL_OPEN = defineSchema<SealOpenBody>(
  object(
    'seal-open',
    {
      cipherText: bytes('the sealed box'),
      myPub: bytes("the recipient's ED25519 public key: names the keystore's key"),
    },
    ['cipherText', 'myPub'],
  ),
);

/** The aries public key object of wrap/unwrap: every member base64url with padding, strings too. */
export interface WirePublicKey {
  kid?: string;
  x: string;
  y?: string;
  curve: string;
  type: string;
}
const wirePublicKey = {
  type: 'object',
  description:
    'a public key in the aries wrap shape: `{kid, x, y, curve, type}`, every member base64url with padding (strings too)',
  properties: {
    kid: { type: 'string' },
    x: { type: 'string' },
    y: { type: 'string' },
    curve: { type: 'string' },
    type: { type: 'string' },
  },
  required: ['x', 'curve', 'type'],
};

export interface WireWrappedKey {
  kid?: string;
  encryptedCEK: string;
  epk: WirePublicKey;
  alg: string;
  apu?: string;
  apv?: string;
}
const wireWrappedKey = {
  type: 'object',
  description: 'a wrapped key as wrap answers it: `{kid, encryptedCEK, epk, alg, apu, apv}`',
  properties: {
    kid: { type: 'string' },
    encryptedCEK: { type: 'string' },
    epk: wirePublicKey,
    alg: { type: 'string' },
    apu: { type: 'string' },
    apv: { type: 'string' },
  },
  required: ['encryptedCEK', 'epk', 'alg'],
};

export interface WrapBody {
  cek: string;
  apu?: string;
  apv?: string;
  recPubKey: WirePublicKey;
  tag?: string;
}
export const WRAP = defineSchema<WrapBody>(
  object(
    'wrap',
    {
      cek: bytes('the content encryption key'),
      apu: bytes('PartyUInfo'),
      apv: bytes('PartyVInfo'),
      recPubKey: wirePublicKey,
      tag: bytes('ECDH-1PU: the content tag, bound into the KDF'),
    },
    ['cek', 'recPubKey'],
  ),
);

export interface UnwrapBody {
  wrappedKey: WireWrappedKey;
  senderPubKey?: WirePublicKey;
  tag?: string;
  keyVersion?: number;
}
export const UNWRAP = defineSchema<UnwrapBody>(
  object(
    'unwrap',
    {
      wrappedKey: wireWrappedKey,
      senderPubKey: { ...wirePublicKey, description: `ECDH-1PU: the sender's key; ${wirePublicKey.description}` },
      tag: bytes('ECDH-1PU: the content tag'),
      keyVersion,
    },
    ['wrappedKey'],
  ),
);

export interface SignMultiBody {
  messages: string[];
  header?: string;
}
export const SIGN_MULTI = defineSchema<SignMultiBody>(
  object('sign-multi', { messages: bytesList('the messages'), header: bytes('the BBS header') }, ['messages']),
);

export interface VerifyMultiBody {
  signature: string;
  messages: string[];
  header?: string;
  keyVersion?: number;
}
export const VERIFY_MULTI = defineSchema<VerifyMultiBody>(
  object(
    'verify-multi',
    {
      signature: bytes('the BBS signature'),
      messages: bytesList('the messages'),
      header: bytes('the BBS header'),
      keyVersion,
    },
    ['signature', 'messages'],
  ),
);

const indexes = (description: string) => ({ type: 'array', items: { type: 'integer', minimum: 0 }, description });

export interface DeriveProofBody {
  messages: string[];
  signature: string;
  nonce: string;
  revealedIndexes: number[];
  header?: string;
  keyVersion?: number;
}
export const DERIVE_PROOF = defineSchema<DeriveProofBody>(
  object(
    'derive-proof',
    {
      messages: bytesList('every signed message'),
      signature: bytes('the BBS signature'),
      nonce: bytes('the presentation header'),
      revealedIndexes: indexes('indexes of the messages to reveal'),
      header: bytes('the BBS header'),
      keyVersion,
    },
    ['messages', 'signature', 'nonce', 'revealedIndexes'],
  ),
);

export interface VerifyProofBody {
  proof: string;
  messages: string[];
  revealedIndexes: number[];
  nonce: string;
  header?: string;
  keyVersion?: number;
}
export const VERIFY_PROOF = defineSchema<VerifyProofBody>(
  object(
    'verify-proof',
    {
      proof: bytes('the proof'),
      messages: bytesList('the revealed messages, in index order'),
      revealedIndexes: indexes('their indexes (the IETF scheme needs them)'),
      nonce: bytes('the presentation header'),
      header: bytes('the BBS header'),
      keyVersion,
    },
    ['proof', 'messages', 'revealedIndexes', 'nonce'],
  ),
);

export interface CreateDidBody {
  keystoreID: string;
  method?: 'key' | 'node';
}
export const CREATE_DID = defineSchema<CreateDidBody>(
  object(
    'create-did',
    {
      keystoreID: {
        type: 'string',
        minLength: 1,
        description:
          'the keystore that holds the new keys (its capability or controller signature authorises the call)',
      },
      method: { enum: ['key', 'node'], description: 'default: node when the kms has a --node-url, else key' },
    },
    ['keystoreID'],
  ),
);

/** Any of the request schemas above (the route table names them). */
export type AnySchema = Schema<unknown>;
