import { base64UrlPaddedEncode as b64, randomBase64UrlId } from '@anchor/common/encoding';
import { AppError, badRequest } from '@anchor/common/errors';
import { jsonBody, type FastAnswer, type FastHandler, type FastRequest } from '@anchor/common/http';
import {
  computeMac,
  decrypt,
  easy,
  easyOpen,
  encrypt,
  exportPublicKey,
  generateKey,
  importPrivateKey,
  isKmsCryptoError,
  keyKind,
  sealOpen,
  sign,
  verify,
  verifyMac,
  type KeyMaterial,
  type KmsKeyType,
} from '../crypto/index.js';
import { authorizeKeystore } from '../access/keystore-access.js';
import type { BatchSigner } from '../crypto/batch-sign/index.js';
import type { KeyRecord, KeystoreRecord, KeyVersionRecord } from '../keystores/keystore-records.js';
import { KEY_ID_PATTERN, type Keystores, type NewKeyVersion } from '../keystores/keystores.js';
import type { KmsMetrics } from '../metrics.js';
import { bytesListOf, bytesOf, optionalBytesOf } from './request-body.js';
import * as schemas from './schemas.js';

export interface KmsOperationsOptions {
  keystores: Keystores;
  metrics: KmsMetrics;
  /** The external base URL, for `Location` (known once the listener is up). */
  baseUrl: () => string;
  /** Signs `/signbatch`'s messages, on worker threads where it has them. */
  batchSigner: BatchSigner;
}

/** A handler's answer as JSON. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): FastAnswer {
  return { contentType: 'application/json', body: JSON.stringify(body), status, ...(headers ? { headers } : {}) };
}

/** A crypto-core refusal of client input is the client's 400 (its message names the field, never key material). */
export function asAppError(error: unknown): unknown {
  if (isKmsCryptoError(error)) return badRequest(error.message, { details: { reason: error.code } });
  return error;
}

/** The pieces every keystore- and key-scoped handler starts from, in this order: keystore (404), credentials (401/403), key (404). */
export class KeystoreScope {
  constructor(
    readonly keystores: Keystores,
    readonly baseUrl: () => string,
  ) {}

  async keystore(req: FastRequest): Promise<KeystoreRecord> {
    const keystore = await this.keystores.get(req.params.keystoreId as string);
    authorizeKeystore(this.keystores, keystore, req);
    return keystore;
  }

  async key(req: FastRequest): Promise<{ keystore: KeystoreRecord; key: KeyRecord }> {
    const keystore = await this.keystore(req);
    return { keystore, key: await this.keystores.key(keystore, req.params.keyId as string) };
  }

  /** The newest version's secret: what new signatures, ciphertexts and MACs are made with. */
  current(keystore: KeystoreRecord, key: KeyRecord): { material: KeyMaterial; version: KeyVersionRecord } {
    const version = this.keystores.version(key);
    return { material: this.keystores.material(keystore, key, version), version };
  }

  /** The versions a check may use: the one asked for, or all, newest first. */
  candidates(keystore: KeystoreRecord, key: KeyRecord, keyVersion: number | undefined): KeyMaterial[] {
    const versions = keyVersion === undefined ? [...key.versions].reverse() : [this.keystores.version(key, keyVersion)];
    return versions.map((version) => this.keystores.material(keystore, key, version));
  }

  keyLocation(keystore: KeystoreRecord, keyId: string): string {
    return `${this.baseUrl()}/v1/keystores/${keystore.id}/keys/${encodeURIComponent(keyId)}`;
  }
}

/** A key's first version or next version from the crypto core, with its public key when its type has one. */
export function newVersion(material: KeyMaterial, kid: string): NewKeyVersion {
  const kind = keyKind(material.type);
  const publicKey = kind === 'aead' || kind === 'mac' ? undefined : exportPublicKey(material, kid);
  return { material, publicKey };
}

/** Makes an operation's fast handler: measured under its name, its errors mapped to the kit's AppErrors. */
export function measuredOperation(metrics: KmsMetrics) {
  return (name: string, handler: (req: FastRequest) => Promise<FastAnswer>): FastHandler =>
    (req) =>
      metrics.measure(name, async () => {
        try {
          return await handler(req);
        } catch (error) {
          throw asAppError(error);
        }
      });
}

/** The kms operations of the original (key creation, import, export, rotation, sign ... sealopen) as fast handlers. */
export function kmsOperations({ keystores, metrics, baseUrl, batchSigner }: KmsOperationsOptions) {
  const scope = new KeystoreScope(keystores, baseUrl);
  const op = measuredOperation(metrics);

  const keyCreated = (
    keystore: KeystoreRecord,
    key: KeyRecord,
    exportKey: boolean | undefined,
    status: number,
  ): FastAnswer => {
    const location = scope.keyLocation(keystore, key.keyId);
    const version = keystores.version(key);
    return json(
      {
        location,
        keyID: key.keyId,
        keyVersion: version.version,
        ...(exportKey && version.publicKey ? { publicKey: b64(Buffer.from(version.publicKey, 'base64')) } : {}),
      },
      status,
      status === 201 ? { Location: location } : undefined,
    );
  };

  const exportKey = op('export', async (req) => {
    const { key } = await scope.key(req);
    const asked = req.query.get('keyVersion');
    if (asked !== null && !/^[1-9]\d{0,8}$/.test(asked)) throw badRequest('keyVersion: a positive integer expected');
    const version = keystores.version(key, asked === null ? undefined : Number(asked));
    if (!version.publicKey) throw badRequest(`a ${key.keyType} key is symmetric and has no public key`);
    return json({
      publicKey: b64(Buffer.from(version.publicKey, 'base64')),
      keyType: key.keyType,
      keyVersion: version.version,
    });
  });

  return {
    createKey: op('create_key', async (req) => {
      const keystore = await scope.keystore(req);
      const body = jsonBody(req, schemas.CREATE_KEY);
      const keyId = randomKeyId();
      const key = await keystores.addKey(keystore, keyId, newVersion(generateKey(body.keyType as KmsKeyType), keyId));
      return keyCreated(keystore, key, body.export, 201);
    }),

    importKey: op('import_key', async (req) => {
      const keystore = await scope.keystore(req);
      const body = jsonBody(req, schemas.IMPORT_KEY);
      const keyId = body.keyID ?? randomKeyId();
      if (!KEY_ID_PATTERN.test(keyId)) throw badRequest('keyID: 1 to 128 of A-Z a-z 0-9 . _ ~ -');
      if ((body.keyBytes === undefined) === (body.jwk === undefined))
        throw badRequest('give the private key once: keyBytes (PKCS#8 DER or raw) or jwk');
      const key = body.keyBytes === undefined ? (body.jwk as object) : bytesOf(body.keyBytes, 'keyBytes');
      const material = importPrivateKey(body.keyType as KmsKeyType, key);
      const stored = await keystores.addKey(keystore, keyId, newVersion(material, keyId));
      return keyCreated(keystore, stored, false, 201);
    }),

    exportKey,

    rotateKey: op('rotate', async (req) => {
      const keystore = await scope.keystore(req);
      const body = req.body?.length ? jsonBody(req, schemas.ROTATE_KEY) : {};
      const keyId = req.params.keyId as string;
      const key = await keystores.rotate(keystore, keyId, (type) => newVersion(generateKey(type), keyId));
      return keyCreated(keystore, key, body.export, 200);
    }),

    sign: op('sign', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.SIGN);
      const { material, version } = scope.current(keystore, key);
      const signature = sign(material, bytesOf(body.message, 'message'));
      return json({ signature: b64(signature), keyVersion: version.version });
    }),

    // Many messages in one request, each signed on its own with the newest version, answered in order: an
    // issuer signing many credentials pays the HTTP cost (most of a single sign's) once per batch.
    signBatch: op('sign_batch', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.SIGN_BATCH);
      const messages = bytesListOf(body.messages, 'messages');
      const { material, version } = scope.current(keystore, key);
      const name = `${keystore.id}/${key.keyId}/${version.version}`;
      const signatures = await batchSigner.signAll(name, material, messages);
      return json({ signatures: signatures.map((signature) => b64(signature)), keyVersion: version.version });
    }),

    verify: op('verify', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.VERIFY);
      const signature = bytesOf(body.signature, 'signature');
      const message = bytesOf(body.message, 'message');
      const verified = scope.candidates(keystore, key, body.keyVersion).some((m) => verify(m, signature, message));
      return json({ verified });
    }),

    encrypt: op('encrypt', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.ENCRYPT);
      const { material, version } = scope.current(keystore, key);
      const sealed = encrypt(material, bytesOf(body.message, 'message'), optionalBytesOf(body.aad, 'aad'));
      return json({ cipherText: b64(sealed.ciphertext), nonce: b64(sealed.nonce), keyVersion: version.version });
    }),

    decrypt: op('decrypt', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.DECRYPT);
      const cipherText = bytesOf(body.cipherText, 'cipherText');
      const nonce = bytesOf(body.nonce, 'nonce');
      const aad = optionalBytesOf(body.aad, 'aad');
      const plainText = firstThatOpens(scope.candidates(keystore, key, body.keyVersion), (m) =>
        decrypt(m, cipherText, aad, nonce),
      );
      return json({ plainText: b64(plainText) });
    }),

    computeMac: op('compute_mac', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.COMPUTE_MAC);
      const { material, version } = scope.current(keystore, key);
      return json({ mac: b64(computeMac(material, bytesOf(body.data, 'data'))), keyVersion: version.version });
    }),

    verifyMac: op('verify_mac', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.VERIFY_MAC);
      const mac = bytesOf(body.mac, 'mac');
      const data = bytesOf(body.data, 'data');
      const verified = scope.candidates(keystore, key, body.keyVersion).some((m) => verifyMac(m, mac, data));
      return json({ verified });
    }),

    easy: op('easy', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.EASY);
      const { material, version } = scope.current(keystore, key);
      const box = easy(
        material,
        bytesOf(body.payload, 'payload'),
        bytesOf(body.nonce, 'nonce'),
        bytesOf(body.theirPub, 'theirPub'),
      );
      return json({ cipherText: b64(box), keyVersion: version.version });
    }),

    easyOpen: op('easy_open', async (req) => {
      const keystore = await scope.keystore(req);
      const body = jsonBody(req, schemas.EASY_OPEN);
      const material = await materialByPublicKey(keystores, keystore, bytesOf(body.myPub, 'myPub'));
      const plainText = easyOpen(
        material,
        bytesOf(body.cipherText, 'cipherText'),
        bytesOf(body.nonce, 'nonce'),
        bytesOf(body.theirPub, 'theirPub'),
      );
      return json({ plainText: b64(plainText) });
    }),

    sealOpen: op('seal_open', async (req) => {
      const keystore = await scope.keystore(req);
      const body = jsonBody(req, schemas.SEAL_OPEN);
      const material = await materialByPublicKey(keystores, keystore, bytesOf(body.myPub, 'myPub'));
      return json({ plainText: b64(sealOpen(material, bytesOf(body.cipherText, 'cipherText'))) });
    }),
  } satisfies Record<string, FastHandler>;
}

async function materialByPublicKey(
  keystores: Keystores,
  keystore: KeystoreRecord,
  publicKey: Uint8Array,
): Promise<KeyMaterial> {
  const { key, version } = await keystores.keyByPublicKey(keystore, publicKey);
  return keystores.material(keystore, key, version);
}

/** The first version's result that opens; a ciphertext no version opens is the last version's 400. */
export function firstThatOpens<T>(materials: readonly KeyMaterial[], open: (m: KeyMaterial) => T): T {
  let failure: unknown;
  for (const material of materials) {
    try {
      return open(material);
    } catch (error) {
      if (!(isKmsCryptoError(error) && error.code === 'decrypt-failed')) throw error;
      failure = error;
    }
  }
  throw failure ?? new AppError('internal', 'a key without versions');
}

export function randomKeyId(): string {
  return randomBase64UrlId(16);
}
