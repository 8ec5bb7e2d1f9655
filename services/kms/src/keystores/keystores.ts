import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { randomBase64UrlId } from '@anchor/common/encoding';
import { AppError, conflict, notFound } from '@anchor/common/errors';
import type { Store, StoreProvider } from '@anchor/common/storage';
import { LRUCache } from 'lru-cache';
import type { KeyMaterial, KmsKeyType } from '../crypto/index.js';
import { open, seal } from './envelope.js';
import {
  keyRecordId,
  keystoreAad,
  keyVersionAad,
  STORES,
  type KeyRecord,
  type KeystoreRecord,
  type KeyVersionRecord,
  type MasterKeyCheckRecord,
  type PublicKeyIndexRecord,
} from './keystore-records.js';
import { MasterKeyError } from './master-key.js';

const MASTER_KEY_CHECK = 'master-key-check';
/** Rotations that lost the race for a version number to another replica try again this many times in all. */
const MAX_ROTATION_ATTEMPTS = 5;
/** How long a key record read from the store is used before it is read again (see `Keystores.key`). */
export const KEY_RECORD_TTL_MS = 1_000;
const CHECK_TEXT = 'anchor kms master key check';
const DATA_KEY_BYTES = 32;

/** A new key, or a new version of one: its secret and, when its type has one, its exported public key. */
export interface NewKeyVersion {
  material: KeyMaterial;
  publicKey?: Uint8Array | undefined;
}

/** Key ids the caller may choose on import: URL-safe, no separator of the store's keys. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * Keystores and their keys at rest: every key version's secret sealed by its keystore's data key, every data key
 * sealed by the master key, each under AAD naming the record. Keys live under `<keystore>:<key id>`, so a key
 * id is only ever looked up inside the keystore of the request (tenant isolation).
 */
export class Keystores {
  // Keystores and key versions never change once written, so their records, unwrapped data keys and opened
  // secrets can be kept (the crypto core keeps its parsed keys per KeyMaterial object): the hot path then reads
  // one key record at most once a second. Key records change when a rotation appends a version: this process
  // updates its copy at once, another replica's rotation is seen within KEY_RECORD_TTL_MS.
  private readonly records = new LRUCache<string, KeystoreRecord>({ max: 10_000 });
  private readonly keyRecords = new LRUCache<string, KeyRecord>({ max: 10_000, ttl: KEY_RECORD_TTL_MS });
  private readonly dataKeys = new LRUCache<string, Buffer>({ max: 10_000 });
  private readonly materials = new LRUCache<string, KeyMaterial>({ max: 10_000 });
  private readonly rotations = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly storage: StoreProvider,
    private readonly masterKey: Buffer,
    private readonly keystores: Store<KeystoreRecord>,
    private readonly keys: Store<KeyRecord>,
    private readonly publicKeys: Store<PublicKeyIndexRecord & Record<string, unknown>>,
    // Opened so that batches may write to it; read by nobody.
    _keyVersions: Store,
  ) {}

  /**
   * Opens the stores and checks the master key against the check value sealed under the first master key this
   * database saw (written on first start): a different key is refused here rather than failing on every key.
   */
  static async open(storage: StoreProvider, masterKey: Buffer): Promise<Keystores> {
    const meta = await storage.open<MasterKeyCheckRecord>(STORES.meta);
    const fresh: MasterKeyCheckRecord = {
      check: seal(masterKey, Buffer.from(CHECK_TEXT), MASTER_KEY_CHECK),
      createdAt: new Date().toISOString(),
    };
    await meta.insert(MASTER_KEY_CHECK, fresh);
    const stored = await meta.get(MASTER_KEY_CHECK);
    if (!stored || open(masterKey, stored.check, MASTER_KEY_CHECK)?.toString() !== CHECK_TEXT)
      throw new MasterKeyError(
        `the master key is not the one this database's keys are sealed under (check value of ${stored?.createdAt ?? 'unknown date'} does not open): give the original --secret-lock-key-path`,
      );
    return new Keystores(
      storage,
      masterKey,
      await storage.open<KeystoreRecord>(STORES.keystores),
      await storage.open<KeyRecord>(STORES.keys),
      await storage.open(STORES.publicKeys),
      await storage.open(STORES.keyVersions),
    );
  }

  /** A new keystore and its capability token (returned once; only its digest is kept). */
  async create(controller: string): Promise<{ record: KeystoreRecord; capability: string }> {
    const id = randomBase64UrlId(15);
    const capability = randomBase64UrlId(32);
    const dataKey = randomBytes(DATA_KEY_BYTES);
    const record: KeystoreRecord = {
      id,
      controller,
      createdAt: new Date().toISOString(),
      dataKey: seal(this.masterKey, dataKey, keystoreAad(id)),
      capabilityDigest: digest(capability),
    };
    if (!(await this.keystores.insert(id, record))) throw new Error('keystore id collision');
    this.dataKeys.set(id, dataKey);
    return { record, capability };
  }

  /** The keystore, or 404. */
  async get(id: string): Promise<KeystoreRecord> {
    const cached = this.records.get(id);
    if (cached) return cached;
    const record = await this.keystores.get(id);
    if (!record) throw notFound(`keystore ${id} not found`);
    this.records.set(id, record);
    return record;
  }

  /** Whether `token` is the keystore's capability (constant time). */
  capabilityMatches(keystore: KeystoreRecord, token: string): boolean {
    return timingSafeEqual(Buffer.from(digest(token), 'base64'), Buffer.from(keystore.capabilityDigest, 'base64'));
  }

  /** Stores a new key (version 1); 409 when `keyId` is taken in this keystore. */
  async addKey(keystore: KeystoreRecord, keyId: string, first: NewKeyVersion): Promise<KeyRecord> {
    const now = new Date().toISOString();
    const record: KeyRecord = {
      keystoreId: keystore.id,
      keyId,
      keyType: first.material.type,
      createdAt: now,
      versions: [this.sealVersion(keystore, keyId, 1, first, now)],
    };
    try {
      await this.storage.batch([
        { store: STORES.keys, op: 'insert', key: keyRecordId(keystore.id, keyId), value: record },
        ...this.publicKeyIndex(keystore, record, first, 1),
      ]);
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict')
        throw conflict(`key ${keyId} exists in keystore ${keystore.id}`);
      throw error;
    }
    return record;
  }

  /** The key of this keystore, or 404 (also for another keystore's key id). */
  async key(keystore: KeystoreRecord, keyId: string): Promise<KeyRecord> {
    const id = keyRecordId(keystore.id, keyId);
    const cached = this.keyRecords.get(id);
    if (cached) return cached;
    const record = await this.keys.get(id);
    if (!record) throw notFound(`key ${keyId} not found in keystore ${keystore.id}`);
    this.keyRecords.set(id, record);
    return record;
  }

  /** A version of a key (default the newest), or 404. */
  version(key: KeyRecord, version?: number): KeyVersionRecord {
    const found = version === undefined ? key.versions.at(-1) : key.versions.find((v) => v.version === version);
    if (!found) throw notFound(`key ${key.keyId} has no version ${version}`);
    return found;
  }

  /** The secret of a key version. */
  material(keystore: KeystoreRecord, key: KeyRecord, version: KeyVersionRecord): KeyMaterial {
    const aad = keyVersionAad(keystore.id, key.keyId, version.version);
    const cached = this.materials.get(aad);
    if (cached) return cached;
    const secret = open(this.dataKey(keystore), version.secret, aad);
    if (!secret)
      throw new Error(`key ${key.keyId} version ${version.version} of keystore ${keystore.id} does not open`);
    const material: KeyMaterial = { type: key.keyType as KmsKeyType, secret };
    this.materials.set(aad, material);
    return material;
  }

  /**
   * Adds a version made by `make` (from the key's type). Rotations of one key run one at a time in this process;
   * across replicas, the version's own record is inserted in the same batch as the key record, so a rotation
   * that lost the race for version n reads the key again and becomes n+1.
   */
  async rotate(keystore: KeystoreRecord, keyId: string, make: (type: KmsKeyType) => NewKeyVersion): Promise<KeyRecord> {
    const id = keyRecordId(keystore.id, keyId);
    const previous = this.rotations.get(id) ?? Promise.resolve();
    const rotation = previous.catch(() => undefined).then(() => this.addVersion(keystore, keyId, make));
    this.rotations.set(id, rotation);
    try {
      return await rotation;
    } finally {
      if (this.rotations.get(id) === rotation) this.rotations.delete(id);
    }
  }

  private async addVersion(
    keystore: KeystoreRecord,
    keyId: string,
    make: (type: KmsKeyType) => NewKeyVersion,
  ): Promise<KeyRecord> {
    const id = keyRecordId(keystore.id, keyId);
    // A version record without its key record (a non-transactional batch cut short) must not block the key:
    // after a conflict the next attempt takes a higher number even if the key record did not move.
    let floor = 1;
    for (let attempt = 1; ; attempt++) {
      this.keyRecords.delete(id);
      const key = await this.key(keystore, keyId);
      const next = make(key.keyType as KmsKeyType);
      const number = Math.max((key.versions.at(-1)?.version ?? 0) + 1, floor);
      const createdAt = new Date().toISOString();
      const updated: KeyRecord = {
        ...key,
        versions: [...key.versions, this.sealVersion(keystore, keyId, number, next, createdAt)],
      };
      try {
        await this.storage.batch([
          { store: STORES.keyVersions, op: 'insert', key: `${id}:${number}`, value: { createdAt } },
          { store: STORES.keys, op: 'put', key: id, value: updated },
          ...this.publicKeyIndex(keystore, updated, next, number),
        ]);
      } catch (error) {
        if (error instanceof AppError && error.code === 'conflict' && attempt < MAX_ROTATION_ATTEMPTS) {
          floor = number + 1;
          continue;
        }
        throw error;
      }
      this.keyRecords.set(id, updated);
      return updated;
    }
  }

  /** The key version whose public key this is (easyopen, sealopen find their ED25519 key this way), or 404. */
  async keyByPublicKey(
    keystore: KeystoreRecord,
    publicKey: Uint8Array,
  ): Promise<{ key: KeyRecord; version: KeyVersionRecord }> {
    const entry = await this.publicKeys.get(publicKeyIndexId(keystore.id, publicKey));
    if (!entry) throw notFound(`no key of keystore ${keystore.id} has this public key`);
    const key = await this.key(keystore, entry.keyId);
    return { key, version: this.version(key, entry.version) };
  }

  private sealVersion(
    keystore: KeystoreRecord,
    keyId: string,
    version: number,
    next: NewKeyVersion,
    createdAt: string,
  ): KeyVersionRecord {
    return {
      version,
      createdAt,
      secret: seal(this.dataKey(keystore), next.material.secret, keyVersionAad(keystore.id, keyId, version)),
      ...(next.publicKey ? { publicKey: Buffer.from(next.publicKey).toString('base64') } : {}),
    };
  }

  private publicKeyIndex(keystore: KeystoreRecord, key: KeyRecord, next: NewKeyVersion, version: number) {
    if (key.keyType !== 'ED25519' || !next.publicKey) return [];
    const value: PublicKeyIndexRecord = { keyId: key.keyId, version };
    return [
      { store: STORES.publicKeys, op: 'put' as const, key: publicKeyIndexId(keystore.id, next.publicKey), value },
    ];
  }

  private dataKey(keystore: KeystoreRecord): Buffer {
    const cached = this.dataKeys.get(keystore.id);
    if (cached) return cached;
    const dataKey = open(this.masterKey, keystore.dataKey, keystoreAad(keystore.id));
    // The master key was checked at start-up, so a data key that does not open is damage, not a wrong key.
    if (!dataKey) throw new Error(`the data key of keystore ${keystore.id} does not open under the master key`);
    this.dataKeys.set(keystore.id, dataKey);
    return dataKey;
  }
}

const digest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('base64');

const publicKeyIndexId = (keystoreId: string, publicKey: Uint8Array): string =>
  `${keystoreId}:${createHash('sha256').update(publicKey).digest('base64url')}`;
