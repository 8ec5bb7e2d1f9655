import { base64UrlPaddedDecode, base64UrlPaddedEncode } from '../encoding/index.js';
import { AppError } from '../errors/index.js';
import type { RequestSigner } from '../http/principal.js';
import {
  createHttpClient,
  readPeerHealth,
  type HttpClient,
  type PeerHealth,
  type RetryPolicy,
} from '../http-client/index.js';

/** The aries key-type strings the kms accepts (`vct-kms.md` B.3, minus the unsound ones). */
export type KmsKeyType =
  | 'ED25519'
  | 'ECDSAP256DER'
  | 'ECDSAP384DER'
  | 'ECDSAP521DER'
  | 'ECDSAP256IEEEP1363'
  | 'ECDSAP384IEEEP1363'
  | 'ECDSAP521IEEEP1363'
  | 'ECDSASecp256k1DER'
  | 'ECDSASecp256k1IEEEP1363'
  | 'AES128GCM'
  | 'AES256GCM'
  | 'AES256GCMNoPrefix'
  | 'ChaCha20Poly1305'
  | 'XChaCha20Poly1305'
  | 'HMACSHA256Tag256'
  | 'NISTP256ECDHKW'
  | 'NISTP384ECDHKW'
  | 'NISTP521ECDHKW'
  | 'X25519ECDHKW'
  | 'BLS12381G2';

export interface KmsClientOptions {
  /** The kms's base URL, e.g. `http://127.0.0.1:8075`. */
  url: string;
  /** Bearer token for the kms's own token rules (`POST /v1/keystores`); keystore calls use their capability. */
  token?: string;
  /**
   * HTTP signatures by a key of a keystore's controller DID (`@anchor/common/httpsig` createRequestSigner):
   * the other way into a keystore. A keystore opened with a capability sends the token instead.
   */
  requestSigner?: RequestSigner;
  /** Per request. Default 10 s: the kms answers from its own store. */
  timeoutMs?: number;
  /**
   * Applied to reads and to operations that change nothing (sign, verify, encrypt, ...); creating a keystore,
   * a key, an import or a rotation is sent once, so a lost answer never makes a second key. Default 3
   * attempts, 100 ms doubling to 1 s.
   */
  retry?: RetryPolicy;
  tls?: { ca?: string | Buffer | Array<string | Buffer>; rejectUnauthorized?: boolean };
}

export const DEFAULT_KMS_RETRY: RetryPolicy = Object.freeze({
  attempts: 3,
  initialMs: 100,
  multiplier: 2,
  maxMs: 1_000,
});

export interface CreatedKeystore {
  id: string;
  /** The keystore URL (`<kms>/v1/keystores/{id}`). */
  location: string;
  controller?: string;
  /** The keystore's capability token, returned once: opens the keystore as `Authorization: Bearer`. */
  capability?: string;
}

export interface KeystoreInfo {
  id: string;
  controller?: string;
  createdAt?: string;
}

export interface KmsKeyInfo {
  keyId: string;
  /** The key URL (`<keystore>/keys/{keyID}`). */
  location: string;
  keyVersion?: number;
  /** Present when asked for (`export`) and the key type has a public half. */
  publicKey?: Buffer;
}

export interface KmsPublicKeyInfo {
  /** In the kms's encoding for the key type (raw 32 B Ed25519, 65 B point for P-256 P1363, SPKI DER for DER types). */
  publicKey: Buffer;
  keyType?: KmsKeyType;
  keyVersion?: number;
}

/** An output and the key version that made it. */
export interface Versioned<T> {
  value: T;
  keyVersion?: number;
}

/** A recipient's public key of wrap (JOSE terms): strings and coordinates as trustbloc/kms's REST shape. */
export interface KmsRecipientKey {
  kid?: string;
  x: Uint8Array;
  y?: Uint8Array;
  /** `P-256`, `P-384`, `P-521`, `X25519`. */
  curve: string;
  /** `EC` or `OKP`. */
  type: string;
}

export interface KmsWrappedKey {
  kid?: string;
  encryptedCEK: Buffer;
  epk: KmsRecipientKey;
  alg: string;
  apu: Buffer;
  apv: Buffer;
}

export interface CreatedDid {
  did: string;
  keyId?: string;
  keyIds?: Record<string, string>;
  didDocument?: Record<string, unknown>;
}

export type KmsHealth = PeerHealth;

/**
 * The kms's HTTP API (services/kms/README.md), typed: bytes in and out as Buffers, base64url with padding on
 * the wire. Failures are the common http-client's AppErrors (404 unknown keystore or key, 400 bad input,
 * 401 / 403 refused credentials, retryable network errors and 5xx), their message starting with `kms:`.
 * Operations on keys go through a `KmsKeystore`, opened with the keystore's capability token or with the
 * client's request signer.
 */
export class KmsClient {
  readonly url: string;
  private readonly http: HttpClient;
  private readonly signedHttp: HttpClient | undefined;

  constructor(private readonly options: KmsClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    const common = {
      timeoutMs: options.timeoutMs ?? 10_000,
      retry: options.retry ?? DEFAULT_KMS_RETRY,
      ...(options.tls ? { tls: options.tls } : {}),
    };
    this.http = createHttpClient(common);
    this.signedHttp = options.requestSigner
      ? createHttpClient({ ...common, signer: options.requestSigner })
      : undefined;
  }

  /** `POST /v1/keystores`: a keystore owned by `controller` (a DID); the answer holds its capability, once. */
  async createKeystore(request: { controller: string; [member: string]: unknown }): Promise<CreatedKeystore> {
    const response = await kmsRequest<Record<string, unknown>>(
      this.signedHttp ?? this.http,
      `${this.url}/v1/keystores`,
      {
        method: 'POST',
        json: request,
        retry: false,
        ...(this.options.token !== undefined ? { token: this.options.token } : {}),
      },
    );
    const location = stringMember(response.data, 'location') ?? response.headers.location;
    const id = stringMember(response.data, 'id') ?? lastSegment(location);
    if (id === undefined) throw badAnswer('POST /v1/keystores', 'no keystore id');
    const capability = stringMember(response.data, 'capability');
    const controller = stringMember(response.data, 'controller');
    return {
      id,
      location: location ?? `${this.url}/v1/keystores/${encodeURIComponent(id)}`,
      ...(controller !== undefined ? { controller } : {}),
      ...(capability !== undefined ? { capability } : {}),
    };
  }

  /**
   * A handle on one keystore. With `capability`, every call carries it as `Authorization: Bearer`; without,
   * calls are HTTP-signed by the client's `requestSigner` (a key of the keystore's controller).
   */
  keystore(id: string, auth: { capability?: string } = {}): KmsKeystore {
    if (auth.capability === undefined && this.signedHttp === undefined)
      throw new TypeError('a kms keystore needs its capability token or a request signer of its controller');
    const http = auth.capability === undefined ? this.signedHttp : this.http;
    const token = auth.capability;
    const url = `${this.url}/v1/keystores/${encodeURIComponent(id)}`;
    return new KmsKeystore(id, url, this.url, (method, target, json, retry = true) =>
      kmsRequest(http ?? this.http, target, {
        method,
        ...(json !== undefined ? { json } : {}),
        ...(token !== undefined ? { token } : {}),
        ...(retry ? {} : { retry: false }),
      }),
    );
  }

  /** `GET /healthcheck`; a kms that does not answer rejects with a retryable error. */
  async health(): Promise<KmsHealth> {
    return readPeerHealth(this.http, this.url, { retry: false });
  }

  close(): void {
    this.http.close();
    this.signedHttp?.close();
  }
}

/** One keystore of a kms: its keys and every operation of the kms API on them. */
export class KmsKeystore {
  /** @param send one exchange with this keystore's credentials (made by `KmsClient.keystore`) */
  constructor(
    readonly id: string,
    /** `<kms>/v1/keystores/{id}` */
    readonly url: string,
    private readonly kmsUrl: string,
    private readonly send: KeystoreSender,
  ) {}

  /** The URL of a key of this keystore (what a signature's `keyRef` names, with `#v<version>`). */
  keyUrl(keyId: string): string {
    return `${this.url}/keys/${encodeURIComponent(keyId)}`;
  }

  /** `GET /v1/keystores/{id}`: a cheap authenticated call (what health checks make). */
  async info(): Promise<KeystoreInfo> {
    const { data } = await this.send<Record<string, unknown>>('GET', this.url);
    return {
      id: stringMember(data, 'id') ?? this.id,
      ...optionalString(data, 'controller'),
      ...optionalString(data, 'createdAt'),
    };
  }

  /**
   * `POST /v1/keystores/did`: a DID whose keys live in this keystore (`key`: did:key; `node`: did:node on the
   * kms's configured node).
   */
  async createDid(method?: 'key' | 'node'): Promise<CreatedDid> {
    const body = { keystoreID: this.id, ...(method !== undefined ? { method } : {}) };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.kmsUrl}/v1/keystores/did`, body, false);
    const did = stringMember(data, 'did');
    if (did === undefined) throw badAnswer('create DID', 'no did');
    const keyId = stringMember(data, 'keyID');
    return {
      did,
      ...(keyId !== undefined ? { keyId } : {}),
      ...(isRecord(data.keyIDs) ? { keyIds: data.keyIDs as Record<string, string> } : {}),
      ...(isRecord(data.didDocument) ? { didDocument: data.didDocument } : {}),
    };
  }

  async createKey(keyType: KmsKeyType, options: { export?: boolean } = {}): Promise<KmsKeyInfo> {
    const body = { keyType, ...(options.export ? { export: true } : {}) };
    return this.keyInfo('create key', await this.send('POST', `${this.url}/keys`, body, false));
  }

  /** Imports a private key (PKCS#8 DER or the raw form the kms accepts for the type) under `keyId` or a derived id. */
  async importKey(keyType: KmsKeyType, keyBytes: Uint8Array, keyId?: string): Promise<KmsKeyInfo> {
    const body = { keyType, keyBytes: encode(keyBytes), ...(keyId !== undefined ? { keyID: keyId } : {}) };
    return this.keyInfo('import key', await this.send('PUT', `${this.url}/keys`, body, false));
  }

  /** A new version under the same key id; the old versions still verify and decrypt. */
  async rotateKey(keyId: string): Promise<KmsKeyInfo> {
    return this.keyInfo('rotate key', await this.send('POST', `${this.keyUrl(keyId)}/rotate`, {}, false));
  }

  async exportPublicKey(keyId: string, keyVersion?: number): Promise<KmsPublicKeyInfo> {
    const query = keyVersion !== undefined ? `?keyVersion=${keyVersion}` : '';
    const { data } = await this.send<Record<string, unknown>>('GET', `${this.keyUrl(keyId)}${query}`);
    const keyType = stringMember(data, 'keyType') as KmsKeyType | undefined;
    return {
      publicKey: bytesMember(data, 'publicKey', 'export public key'),
      ...(keyType !== undefined ? { keyType } : {}),
      ...optionalVersion(data),
    };
  }

  async sign(keyId: string, message: Uint8Array): Promise<Versioned<Buffer>> {
    return this.versioned(keyId, 'sign', { message: encode(message) }, 'signature');
  }

  /**
   * Each of `messages` signed on its own with the key's newest version, in one request (`/signbatch`, 1 to 1,000
   * messages): the signatures in the messages' order. For an issuer signing many credentials at once.
   */
  async signBatch(keyId: string, messages: readonly Uint8Array[]): Promise<Versioned<Buffer[]>> {
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.keyUrl(keyId)}/signbatch`, {
      messages: messages.map(encode),
    });
    const signatures = isRecord(data) ? data.signatures : undefined;
    if (!Array.isArray(signatures)) throw badAnswer('signbatch', 'no "signatures" list');
    if (signatures.length !== messages.length)
      throw badAnswer('signbatch', `${signatures.length} signatures for ${messages.length} messages`);
    const value = signatures.map((signature, index) => bytesMember({ signature }, 'signature', `signbatch[${index}]`));
    return { value, ...optionalVersion(data) };
  }

  /** False for a signature that does not verify (the kms answers 200 `{"verified": false}`). */
  async verify(keyId: string, signature: Uint8Array, message: Uint8Array, keyVersion?: number): Promise<boolean> {
    return this.verified(keyId, 'verify', { signature: encode(signature), message: encode(message) }, keyVersion);
  }

  /** AEAD: `cipherText` is ciphertext||tag; the nonce is made by the kms. */
  async encrypt(
    keyId: string,
    message: Uint8Array,
    aad?: Uint8Array,
  ): Promise<{ cipherText: Buffer; nonce: Buffer; keyVersion?: number }> {
    const body = { message: encode(message), ...(aad !== undefined ? { aad: encode(aad) } : {}) };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.keyUrl(keyId)}/encrypt`, body);
    return {
      cipherText: bytesMember(data, 'cipherText', 'encrypt'),
      nonce: bytesMember(data, 'nonce', 'encrypt'),
      ...optionalVersion(data),
    };
  }

  async decrypt(
    keyId: string,
    cipherText: Uint8Array,
    nonce: Uint8Array,
    aad?: Uint8Array,
    keyVersion?: number,
  ): Promise<Buffer> {
    const body = {
      cipherText: encode(cipherText),
      nonce: encode(nonce),
      ...(aad !== undefined ? { aad: encode(aad) } : {}),
      ...(keyVersion !== undefined ? { keyVersion } : {}),
    };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.keyUrl(keyId)}/decrypt`, body);
    return bytesMember(data, 'plainText', 'decrypt');
  }

  async computeMac(keyId: string, data: Uint8Array): Promise<Versioned<Buffer>> {
    return this.versioned(keyId, 'computemac', { data: encode(data) }, 'mac');
  }

  async verifyMac(keyId: string, mac: Uint8Array, data: Uint8Array, keyVersion?: number): Promise<boolean> {
    return this.verified(keyId, 'verifymac', { mac: encode(mac), data: encode(data) }, keyVersion);
  }

  /** NaCl `crypto_box` from this Ed25519 key (as X25519) to `theirPub` (X25519), with a 24-byte nonce. */
  async easy(keyId: string, payload: Uint8Array, nonce: Uint8Array, theirPub: Uint8Array): Promise<Buffer> {
    const body = { payload: encode(payload), nonce: encode(nonce), theirPub: encode(theirPub) };
    return (await this.versioned(keyId, 'easy', body, 'cipherText')).value;
  }

  /** Opens a box for the key whose Ed25519 public key is `myPub`, from the sender's X25519 `theirPub`. */
  async easyOpen(cipherText: Uint8Array, nonce: Uint8Array, theirPub: Uint8Array, myPub: Uint8Array): Promise<Buffer> {
    const body = {
      cipherText: encode(cipherText),
      nonce: encode(nonce),
      theirPub: encode(theirPub),
      myPub: encode(myPub),
    };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.url}/easyopen`, body);
    return bytesMember(data, 'plainText', 'easyopen');
  }

  /** Opens a sealed box (`crypto_box_seal`) for the key whose Ed25519 public key is `myPub`. */
  async sealOpen(cipherText: Uint8Array, myPub: Uint8Array): Promise<Buffer> {
    const body = { cipherText: encode(cipherText), myPub: encode(myPub) };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.url}/sealopen`, body);
    return bytesMember(data, 'plainText', 'sealopen');
  }

  /**
   * Wraps a content key for `recipient`: anoncrypt (ECDH-ES) without `senderKeyId`, authcrypt (ECDH-1PU) with
   * this keystore's key `senderKeyId` as the sender.
   */
  async wrap(
    request: { cek: Uint8Array; apu: Uint8Array; apv: Uint8Array; recipient: KmsRecipientKey; tag?: Uint8Array },
    senderKeyId?: string,
  ): Promise<KmsWrappedKey> {
    const body = {
      cek: encode(request.cek),
      apu: encode(request.apu),
      apv: encode(request.apv),
      recPubKey: encodeRecipient(request.recipient),
      ...(request.tag !== undefined ? { tag: encode(request.tag) } : {}),
    };
    const url = senderKeyId === undefined ? `${this.url}/wrap` : `${this.keyUrl(senderKeyId)}/wrap`;
    const { data } = await this.send<Record<string, unknown>>('POST', url, body);
    if (!isRecord(data.wrappedKey)) throw badAnswer('wrap', 'no wrappedKey');
    return decodeWrapped(data.wrappedKey);
  }

  /** Unwraps with this keystore's key; `senderPubKey` (and `tag`) for authcrypt. */
  async unwrap(
    keyId: string,
    wrapped: KmsWrappedKey,
    options: { senderPubKey?: KmsRecipientKey; tag?: Uint8Array } = {},
  ): Promise<Buffer> {
    const body = {
      wrappedKey: encodeWrapped(wrapped),
      ...(options.senderPubKey !== undefined ? { senderPubKey: encodeRecipient(options.senderPubKey) } : {}),
      ...(options.tag !== undefined ? { tag: encode(options.tag) } : {}),
    };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.keyUrl(keyId)}/unwrap`, body);
    return bytesMember(data, 'key', 'unwrap');
  }

  /** BBS signature (BLS12-381, IETF draft ciphersuite) over `messages`. */
  async signMulti(keyId: string, messages: Uint8Array[], header?: Uint8Array): Promise<Versioned<Buffer>> {
    const body = { messages: messages.map(encode), ...(header !== undefined ? { header: encode(header) } : {}) };
    return this.versioned(keyId, 'signmulti', body, 'signature');
  }

  async verifyMulti(
    keyId: string,
    signature: Uint8Array,
    messages: Uint8Array[],
    options: { header?: Uint8Array; keyVersion?: number } = {},
  ): Promise<boolean> {
    const body = {
      signature: encode(signature),
      messages: messages.map(encode),
      ...(options.header !== undefined ? { header: encode(options.header) } : {}),
    };
    return this.verified(keyId, 'verifymulti', body, options.keyVersion);
  }

  async deriveProof(
    keyId: string,
    request: {
      messages: Uint8Array[];
      signature: Uint8Array;
      nonce: Uint8Array;
      revealedIndexes: number[];
      header?: Uint8Array;
      keyVersion?: number;
    },
  ): Promise<Buffer> {
    const body = {
      messages: request.messages.map(encode),
      signature: encode(request.signature),
      nonce: encode(request.nonce),
      revealedIndexes: request.revealedIndexes,
      ...(request.header !== undefined ? { header: encode(request.header) } : {}),
      ...(request.keyVersion !== undefined ? { keyVersion: request.keyVersion } : {}),
    };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.keyUrl(keyId)}/deriveproof`, body);
    return bytesMember(data, 'proof', 'deriveproof');
  }

  /** `messages` are the revealed ones, at `revealedIndexes`. */
  async verifyProof(
    keyId: string,
    request: {
      proof: Uint8Array;
      messages: Uint8Array[];
      revealedIndexes: number[];
      nonce: Uint8Array;
      header?: Uint8Array;
      keyVersion?: number;
    },
  ): Promise<boolean> {
    const body = {
      proof: encode(request.proof),
      messages: request.messages.map(encode),
      revealedIndexes: request.revealedIndexes,
      nonce: encode(request.nonce),
      ...(request.header !== undefined ? { header: encode(request.header) } : {}),
    };
    return this.verified(keyId, 'verifyproof', body, request.keyVersion);
  }

  private keyInfo(what: string, response: { headers: Record<string, string>; data: unknown }): KmsKeyInfo {
    const data = isRecord(response.data) ? response.data : {};
    const location = stringMember(data, 'location') ?? response.headers.location;
    const keyId = stringMember(data, 'keyID') ?? lastSegment(location);
    if (keyId === undefined) throw badAnswer(what, 'no key id');
    const publicKey = data.publicKey === undefined ? undefined : bytesMember(data, 'publicKey', what);
    return {
      keyId,
      location: location ?? this.keyUrl(keyId),
      ...optionalVersion(data),
      ...(publicKey !== undefined ? { publicKey } : {}),
    };
  }

  private async versioned(keyId: string, operation: string, body: unknown, member: string): Promise<Versioned<Buffer>> {
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.keyUrl(keyId)}/${operation}`, body);
    return { value: bytesMember(data, member, operation), ...optionalVersion(data) };
  }

  private async verified(keyId: string, operation: string, body: object, keyVersion?: number): Promise<boolean> {
    const json = keyVersion === undefined ? body : { ...body, keyVersion };
    const { data } = await this.send<Record<string, unknown>>('POST', `${this.keyUrl(keyId)}/${operation}`, json);
    const verified = isRecord(data) ? data.verified : undefined;
    if (typeof verified !== 'boolean') throw badAnswer(operation, 'no "verified" boolean');
    return verified;
  }
}

type KeystoreSender = <T>(
  method: string,
  url: string,
  json?: unknown,
  retry?: boolean,
) => Promise<{ status: number; headers: Record<string, string>; data: T }>;

/** One exchange, with `kms:` in front of a failure's message (the AppError's code, status and retryability kept). */
async function kmsRequest<T>(
  http: HttpClient,
  url: string,
  request: { method: string; json?: unknown; token?: string; retry?: boolean },
) {
  try {
    return await http.request<T>(url, request);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError(error.code, `kms: ${error.message}`, {
      retryable: error.retryable,
      cause: error,
      ...(error.details ? { details: error.details } : {}),
    });
  }
}

const encode = (bytes: Uint8Array): string => base64UrlPaddedEncode(bytes);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringMember(data: unknown, name: string): string | undefined {
  const value = isRecord(data) ? data[name] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function optionalString(data: unknown, name: string): Record<string, string> {
  const value = stringMember(data, name);
  return value === undefined ? {} : { [name]: value };
}

function optionalVersion(data: unknown): { keyVersion?: number } {
  const value = isRecord(data) ? data.keyVersion : undefined;
  return typeof value === 'number' && Number.isInteger(value) ? { keyVersion: value } : {};
}

function bytesMember(data: unknown, name: string, what: string): Buffer {
  const value = isRecord(data) ? data[name] : undefined;
  if (typeof value !== 'string') throw badAnswer(what, `no "${name}"`);
  try {
    return base64UrlPaddedDecode(value);
  } catch {
    throw badAnswer(what, `"${name}" is not padded base64url`);
  }
}

function lastSegment(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const segment = new URL(url, 'http://x').pathname.split('/').filter(Boolean).pop();
  return segment === undefined ? undefined : decodeURIComponent(segment);
}

/** A kms that answers 2xx with a body this client cannot read: not retryable, the peer is at fault. */
function badAnswer(what: string, problem: string): AppError {
  return new AppError('bad_gateway', `kms: ${what}: the answer has ${problem}`, { retryable: false });
}

/** trustbloc/kms's REST shape: strings base64url-encoded too (`vct-kms.md` B.2 wire notes). */
function encodeRecipient(key: KmsRecipientKey): Record<string, string> {
  return {
    ...(key.kid !== undefined ? { kid: encode(Buffer.from(key.kid, 'utf8')) } : {}),
    x: encode(key.x),
    y: encode(key.y ?? new Uint8Array()),
    curve: encode(Buffer.from(key.curve, 'utf8')),
    type: encode(Buffer.from(key.type, 'utf8')),
  };
}

function decodeRecipient(data: Record<string, unknown>): KmsRecipientKey {
  const text = (name: string) => bytesMember(data, name, 'wrap').toString('utf8');
  const kid = data.kid === undefined ? undefined : text('kid');
  const y = data.y === undefined ? undefined : bytesMember(data, 'y', 'wrap');
  return {
    ...(kid !== undefined && kid !== '' ? { kid } : {}),
    x: bytesMember(data, 'x', 'wrap'),
    ...(y !== undefined && y.length > 0 ? { y } : {}),
    curve: text('curve'),
    type: text('type'),
  };
}

function encodeWrapped(wrapped: KmsWrappedKey): Record<string, unknown> {
  return {
    ...(wrapped.kid !== undefined ? { kid: encode(Buffer.from(wrapped.kid, 'utf8')) } : {}),
    encryptedCEK: encode(wrapped.encryptedCEK),
    epk: encodeRecipient(wrapped.epk),
    alg: encode(Buffer.from(wrapped.alg, 'utf8')),
    apu: encode(wrapped.apu),
    apv: encode(wrapped.apv),
  };
}

function decodeWrapped(data: Record<string, unknown>): KmsWrappedKey {
  if (!isRecord(data.epk)) throw badAnswer('wrap', 'no epk');
  const kid = data.kid === undefined ? undefined : bytesMember(data, 'kid', 'wrap').toString('utf8');
  return {
    ...(kid !== undefined && kid !== '' ? { kid } : {}),
    encryptedCEK: bytesMember(data, 'encryptedCEK', 'wrap'),
    epk: decodeRecipient(data.epk),
    alg: bytesMember(data, 'alg', 'wrap').toString('utf8'),
    apu: bytesMember(data, 'apu', 'wrap'),
    apv: bytesMember(data, 'apv', 'wrap'),
  };
}
