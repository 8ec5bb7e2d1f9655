import { base64UrlPaddedEncode as b64, randomBase64UrlId } from '@anchor/common/encoding';
import { AppError, badRequest } from '@anchor/common/errors';
import { answer, jsonBody, type Answer, type Handler, type RouteRequest } from '@anchor/common/http';
import type { Schema } from '@anchor/common/schemas';
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
import { bytesListOf, bytesOf, optionalBytesOf } from './wire-encoding.js';
import * as schemas from './schemas.js';

export interface KmsOperationsOptions {
  keystores: Keystores;
  metrics: KmsMetrics;
  /** The external base URL, for `Location` (known once the listener is up). */
  baseUrl: () => string;
  /** Signs `/signbatch`'s messages, on worker threads where it has them. */
  batchSigner: BatchSigner;
}

/** A crypto-core refusal of client input is the client's 400 (its message names the field, never key material). */
function asAppError(error: unknown): unknown {
  if (isKmsCryptoError(error)) return badRequest(error.message, { details: { reason: error.code } });
  return error;
}

/** The pieces every keystore- and key-scoped handler starts from, in this order: keystore (404), credentials (401/403), key (404). */
export class KeystoreScope {
  constructor(
    readonly keystores: Keystores,
    readonly baseUrl: () => string,
  ) {}

  async keystore(req: RouteRequest): Promise<KeystoreRecord> {
    const keystore = await this.keystores.get(req.params.keystoreId as string);
    authorizeKeystore(this.keystores, keystore, req);
    return keystore;
  }

  async key(req: RouteRequest): Promise<{ keystore: KeystoreRecord; key: KeyRecord }> {
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

/** A keystore and one of its keys, as a key-scoped operation starts from. */
export interface ScopedKey {
  keystore: KeystoreRecord;
  key: KeyRecord;
}

/**
 * The one wrapper of the kms operations: each handler is measured under its name and its crypto refusals are
 * the kit's 400s (`asAppError`). `keystore` and `key` operations first find the keystore (404), check the
 * credentials (401/403) and, for `key`, find the key (404), then read the body against the schema (400), in
 * that order.
 */
export class KmsOperations {
  constructor(
    private readonly metrics: KmsMetrics,
    readonly scope: KeystoreScope,
  ) {}

  /** Any handler, measured and mapped. */
  op(name: string, handler: (req: RouteRequest) => Promise<Answer>): Handler {
    return (req) =>
      this.metrics.measure(name, async () => {
        try {
          return await handler(req);
        } catch (error) {
          throw asAppError(error);
        }
      });
  }

  /** An operation on a keystore with a JSON body. */
  keystore<T>(
    name: string,
    schema: Schema<T>,
    work: (keystore: KeystoreRecord, body: T) => Promise<Answer> | Answer,
  ): Handler {
    return this.op(name, async (req) => {
      const keystore = await this.scope.keystore(req);
      return work(keystore, jsonBody(req, schema));
    });
  }

  /** An operation on a key of a keystore with a JSON body. */
  key<T>(name: string, schema: Schema<T>, work: (scoped: ScopedKey, body: T) => Promise<Answer> | Answer): Handler {
    return this.op(name, async (req) => {
      const scoped = await this.scope.key(req);
      return work(scoped, jsonBody(req, schema));
    });
  }

  /**
   * An operation with the key's newest version (sign, encrypt, MAC, box, wrap): `work` gets its material and
   * returns the answer's JSON, to which the version used is added last as `keyVersion`.
   */
  withCurrentKey<T>(
    name: string,
    schema: Schema<T>,
    work: (material: KeyMaterial, body: T) => Promise<Record<string, unknown>> | Record<string, unknown>,
  ): Handler {
    return this.key(name, schema, async ({ keystore, key }, body) => {
      const { material, version } = this.scope.current(keystore, key);
      return answer({ json: { ...(await work(material, body)), keyVersion: version.version } });
    });
  }
}

/** The kms operations of trustbloc/kms (key creation, import, export, rotation, sign ... sealopen) as fast handlers. */
export function kmsOperations({ keystores, metrics, baseUrl, batchSigner }: KmsOperationsOptions) {
  const scope = new KeystoreScope(keystores, baseUrl);
  const ops = new KmsOperations(metrics, scope);

  const keyCreated = (
    keystore: KeystoreRecord,
    key: KeyRecord,
    exportKey: boolean | undefined,
    status: number,
  ): Answer => {
    const location = scope.keyLocation(keystore, key.keyId);
    const version = keystores.version(key);
    return answer({
      json: {
        location,
        keyID: key.keyId,
        keyVersion: version.version,
        ...(exportKey && version.publicKey ? { publicKey: b64(Buffer.from(version.publicKey, 'base64')) } : {}),
      },
      status,
      ...(status === 201 ? { headers: { Location: location } } : {}),
    });
  };

  const exportKey = ops.op('export', async (req) => {
    const { key } = await scope.key(req);
    const asked = req.query.get('keyVersion');
    if (asked !== null && !/^[1-9]\d{0,8}$/.test(asked)) throw badRequest('keyVersion: a positive integer expected');
    const version = keystores.version(key, asked === null ? undefined : Number(asked));
    if (!version.publicKey) throw badRequest(`a ${key.keyType} key is symmetric and has no public key`);
    return answer({
      json: {
        publicKey: b64(Buffer.from(version.publicKey, 'base64')),
        keyType: key.keyType,
        keyVersion: version.version,
      },
    });
  });

  return {
    createKey: ops.keystore('create_key', schemas.CREATE_KEY, async (keystore, body) => {
      const keyId = randomKeyId();
      const key = await keystores.addKey(keystore, keyId, newVersion(generateKey(body.keyType as KmsKeyType), keyId));
      return keyCreated(keystore, key, body.export, 201);
    }),

    importKey: ops.keystore('import_key', schemas.IMPORT_KEY, async (keystore, body) => {
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

    rotateKey: ops.op('rotate', async (req) => {
      const keystore = await scope.keystore(req);
      const body = req.body?.length ? jsonBody(req, schemas.ROTATE_KEY) : {};
      const keyId = req.params.keyId as string;
      const key = await keystores.rotate(keystore, keyId, (type) => newVersion(generateKey(type), keyId));
      return keyCreated(keystore, key, body.export, 200);
    }),

    sign: ops.withCurrentKey('sign', schemas.SIGN, (material, body) => ({
      signature: b64(sign(material, bytesOf(body.message, 'message'))),
    })),

    // Many messages in one request, each signed on its own with the newest version, answered in order: an
    // issuer signing many credentials pays the HTTP cost (most of a single sign's) once per batch.
    signBatch: ops.key('sign_batch', schemas.SIGN_BATCH, async ({ keystore, key }, body) => {
      const messages = bytesListOf(body.messages, 'messages');
      const { material, version } = scope.current(keystore, key);
      const name = `${keystore.id}/${key.keyId}/${version.version}`;
      const signatures = await batchSigner.signAll(name, material, messages);
      return answer({
        json: { signatures: signatures.map((signature) => b64(signature)), keyVersion: version.version },
      });
    }),

    verify: ops.key('verify', schemas.VERIFY, async ({ keystore, key }, body) => {
      const signature = bytesOf(body.signature, 'signature');
      const message = bytesOf(body.message, 'message');
      const verified = scope.candidates(keystore, key, body.keyVersion).some((m) => verify(m, signature, message));
      return answer({ json: { verified } });
    }),

    encrypt: ops.withCurrentKey('encrypt', schemas.ENCRYPT, (material, body) => {
      const sealed = encrypt(material, bytesOf(body.message, 'message'), optionalBytesOf(body.aad, 'aad'));
      return { cipherText: b64(sealed.ciphertext), nonce: b64(sealed.nonce) };
    }),

    decrypt: ops.key('decrypt', schemas.DECRYPT, async ({ keystore, key }, body) => {
      const cipherText = bytesOf(body.cipherText, 'cipherText');
      const nonce = bytesOf(body.nonce, 'nonce');
      const aad = optionalBytesOf(body.aad, 'aad');
      const plainText = firstThatOpens(scope.candidates(keystore, key, body.keyVersion), (m) =>
        decrypt(m, cipherText, aad, nonce),
      );
      return answer({ json: { plainText: b64(plainText) } });
    }),

    computeMac: ops.withCurrentKey('compute_mac', schemas.COMPUTE_MAC, (material, body) => ({
      mac: b64(computeMac(material, bytesOf(body.data, 'data'))),
    })),

    verifyMac: ops.key('verify_mac', schemas.VERIFY_MAC, async ({ keystore, key }, body) => {
      const mac = bytesOf(body.mac, 'mac');
      const data = bytesOf(body.data, 'data');
      const verified = scope.candidates(keystore, key, body.keyVersion).some((m) => verifyMac(m, mac, data));
      return answer({ json: { verified } });
    }),

    easy: ops.withCurrentKey('easy', schemas.EASY, (material, body) => ({
      cipherText: b64(
        easy(
          material,
          bytesOf(body.payload, 'payload'),
          bytesOf(body.nonce, 'nonce'),
          bytesOf(body.theirPub, 'theirPub'),
        ),
      ),
    })),

    easyOpen: ops.keystore('easy_open', schemas.EASY_OPEN, async (keystore, body) => {
      const material = await materialByPublicKey(keystores, keystore, bytesOf(body.myPub, 'myPub'));
      const plainText = easyOpen(
        material,
        bytesOf(body.cipherText, 'cipherText'),
        bytesOf(body.nonce, 'nonce'),
        bytesOf(body.theirPub, 'theirPub'),
      );
      return answer({ json: { plainText: b64(plainText) } });
    }),

    sealOpen: ops.keystore('seal_open', schemas.SEAL_OPEN, async (keystore, body) => {
      const material = await materialByPublicKey(keystores, keystore, bytesOf(body.myPub, 'myPub'));
      return answer({ json: { plainText: b64(sealOpen(material, bytesOf(body.cipherText, 'cipherText'))) } });
    }),
  } satisfies Record<string, Handler>;
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
