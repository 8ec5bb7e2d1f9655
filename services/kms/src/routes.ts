import { openApiRoute, type ApiInfo, type Handler, type HttpApp, type RouteSpec } from '@anchor/common/http';
import { PROJECT_VERSION } from '@anchor/common/version';
import * as schemas from './api/schemas.js';

export const KMS_API_INFO: ApiInfo = {
  title: 'kms',
  version: PROJECT_VERSION,
  description:
    'Key management: keystores owned by a controller DID, keys bound to their keystore, and the operations of trustbloc/kms under `/v1/keystores`. Every binary JSON field is base64url with padding.',
};

export interface RoutedHandlers {
  createKeystore: Handler;
  getKeystore: Handler;
  createDid: Handler;
  createKey: Handler;
  importKey: Handler;
  exportKey: Handler;
  rotateKey: Handler;
  sign: Handler;
  signBatch: Handler;
  verify: Handler;
  encrypt: Handler;
  decrypt: Handler;
  computeMac: Handler;
  verifyMac: Handler;
  easy: Handler;
  easyOpen: Handler;
  sealOpen: Handler;
  wrap: Handler;
  wrapWithSender: Handler;
  unwrap: Handler;
  signMulti: Handler;
  verifyMulti: Handler;
  deriveProof: Handler;
  verifyProof: Handler;
}

const KEYSTORE = { keystoreId: 'the keystore id (`POST /v1/keystores` answered it)' };
const KEY = { ...KEYSTORE, keyId: 'the key id, within that keystore' };
const ACCESS = "the keystore's capability (bearer) or its controller's HTTP signature";
const json = (description: string) => ({ description, mediaType: 'application/json' });
const REFUSED = {
  401: 'no credentials, not the capability, or a bad signature',
  403: 'signed by another DID than the controller',
} as const;
const BAD_BODY =
  'a missing field, wrong type or key type, `<field>: not base64url with padding`, a wrong length, or an operation the key type does not allow';

type Scoped = 'keystore' | 'key';

/**
 * Every HTTP route of the kms: the kit's built-in routes, keystore creation (write tokens), and the keystore
 * routes, which authorise per keystore themselves (`signed`: capability or controller signature; the kit's
 * tokens do not open them). The README's tables are rendered from it (`npm run docs`).
 */
export function kmsRoutes(http: HttpApp, handlers: RoutedHandlers): RouteSpec[] {
  const scoped = (
    scope: Scoped,
    method: 'GET' | 'POST',
    path: string,
    tag: string,
    summary: string,
    handler: Handler,
    extra: { body?: schemas.AnySchema; ok?: string; status?: number; notFound?: string; bodyOptional?: boolean } = {},
  ): RouteSpec => ({
    method,
    path: `/v1/keystores/:keystoreId${scope === 'key' ? '/keys/:keyId' : ''}${path}`,
    auth: 'signed',
    access: ACCESS,
    fast: true,
    tag,
    summary,
    params: scope === 'key' ? KEY : KEYSTORE,
    ...(extra.body
      ? {
          body: {
            mediaTypes: ['application/json'],
            schema: extra.body,
            ...(extra.bodyOptional ? { required: false } : {}),
          },
        }
      : {}),
    responses: {
      [extra.status ?? 200]: json(extra.ok ?? 'the result'),
      ...(extra.body ? { 400: BAD_BODY } : ({} as Record<number, string>)),
      ...REFUSED,
      404:
        extra.notFound ?? (scope === 'key' ? 'unknown keystore, or no such key in this keystore' : 'unknown keystore'),
    },
    handler,
  });
  const op = (path: string, summary: string, body: schemas.AnySchema, handler: Handler, ok: string) =>
    scoped('key', 'POST', path, 'crypto', summary, handler, { body, ok });

  const routes: RouteSpec[] = [
    ...http.builtinRoutes,
    {
      method: 'POST',
      path: '/v1/keystores',
      auth: 'write',
      fast: true,
      tag: 'keystores',
      summary:
        'creates a keystore for a controller DID: 201, `Location`, `{"id","location","controller","capability"}` (the capability is shown once)',
      body: { mediaTypes: ['application/json'], schema: schemas.CREATE_KEYSTORE },
      responses: {
        201: json('the keystore and its capability token'),
        400: '`invalid request: /controller is required`; `controller: a DID expected`; `controller: not a usable did:key`; `controller: did:web:...: <host> resolves to <address>, a private address: refused` (a did:web the kms may not fetch)',
        401: 'write tokens are configured and none was presented',
      },
      handler: handlers.createKeystore,
    },
    {
      method: 'POST',
      path: '/v1/keystores/did',
      auth: 'signed',
      access: `for the keystore named in the body: ${ACCESS}`,
      fast: true,
      tag: 'keystores',
      summary:
        'creates a DID whose keys are new keys of a keystore: did:key, or did:node on `--node-url`: 201 `{"did","verificationMethod","keyID","keyIDs","longFormDid"?}`',
      body: { mediaTypes: ['application/json'], schema: schemas.CREATE_DID },
      responses: {
        201: json('the DID and the ids of its keys in the keystore'),
        400: '`invalid request: ...`; `method node: this kms has no --node-url`',
        ...REFUSED,
        404: 'unknown keystore',
        502: 'the node refused or failed the create operation',
      },
      handler: handlers.createDid,
    },
    scoped(
      'keystore',
      'GET',
      '',
      'keystores',
      'the keystore: `{"id","controller","createdAt"}`',
      handlers.getKeystore,
      { ok: 'the keystore' },
    ),
    scoped(
      'keystore',
      'POST',
      '/keys',
      'keys',
      'creates a key: 201, `Location`, `{"location","keyID","keyVersion":1,"publicKey"?}` (`publicKey` with `"export":true`)',
      handlers.createKey,
      {
        body: schemas.CREATE_KEY,
        status: 201,
        ok: 'the new key',
      },
    ),
    {
      method: 'PUT',
      path: '/v1/keystores/:keystoreId/keys',
      auth: 'signed',
      access: ACCESS,
      tag: 'keys',
      summary:
        'imports a private key (`keyBytes`: PKCS#8 DER, or the raw key of symmetric and BBS types; or `jwk`), optionally under a chosen `keyID`: 201 as create',
      params: KEYSTORE,
      body: { mediaTypes: ['application/json'], schema: schemas.IMPORT_KEY },
      responses: {
        201: json('the imported key'),
        400: `${BAD_BODY}; a key that does not parse as the key type`,
        ...REFUSED,
        404: 'unknown keystore',
        409: 'the keyID exists in this keystore',
      },
      handler: handlers.importKey,
    },
    ...['', '/export'].map((path) => ({
      ...scoped(
        'key',
        'GET',
        path,
        'keys',
        path === ''
          ? 'the public key: `{"publicKey","keyType","keyVersion"}`; `?keyVersion=n` for an older version'
          : "the public key, at trustbloc/kms's path",
        handlers.exportKey,
        { ok: 'the public key', notFound: 'unknown keystore, key or version' },
      ),
      query: [
        { name: 'keyVersion', description: 'a version (default the newest)', schema: { type: 'integer', minimum: 1 } },
      ],
      responses: {
        200: json('the public key'),
        400: 'a symmetric key (no public key); a keyVersion that is not a positive integer',
        ...REFUSED,
        404: 'unknown keystore, key or version',
      },
    })),
    scoped(
      'key',
      'POST',
      '/rotate',
      'keys',
      'adds a new version of the key (the same key id): `{"location","keyID","keyVersion","publicKey"?}`; older versions still verify and decrypt',
      handlers.rotateKey,
      {
        body: schemas.ROTATE_KEY,
        bodyOptional: true,
        ok: 'the key with its new version',
      },
    ),
    op(
      '/sign',
      'signs `message` with the newest version: `{"signature","keyVersion"}`',
      schemas.SIGN,
      handlers.sign,
      'the signature',
    ),
    {
      ...op(
        '/signbatch',
        `signs each of \`messages\` (1 to ${schemas.MAX_SIGN_BATCH}) on its own with the newest version, as \`/sign\` would: \`{"signatures","keyVersion"}\`, the signatures in the messages' order`,
        schemas.SIGN_BATCH,
        handlers.signBatch,
        'the signatures, in order',
      ),
      responses: {
        200: json('the signatures, in order'),
        400: `an empty \`messages\` or more than ${schemas.MAX_SIGN_BATCH} (nothing is signed); \`messages[i]: not base64url with padding\` (nothing is signed); a key type that does not sign`,
        ...REFUSED,
        404: 'unknown keystore, or no such key in this keystore',
      },
    },
    op(
      '/verify',
      'verifies `signature` over `message`: `{"verified":true|false}` (a wrong signature is 200 false)',
      schemas.VERIFY,
      handlers.verify,
      'whether it verifies',
    ),
    op(
      '/encrypt',
      'AEAD-encrypts `message` with optional `aad`: `{"cipherText","nonce","keyVersion"}`',
      schemas.ENCRYPT,
      handlers.encrypt,
      'the ciphertext and nonce',
    ),
    op(
      '/decrypt',
      'decrypts: `{"plainText"}`; a ciphertext that does not open is 400',
      schemas.DECRYPT,
      handlers.decrypt,
      'the plaintext',
    ),
    op(
      '/computemac',
      'HMAC-SHA256 of `data`: `{"mac","keyVersion"}`',
      schemas.COMPUTE_MAC,
      handlers.computeMac,
      'the MAC',
    ),
    op(
      '/verifymac',
      'checks `mac` over `data`: `{"verified":true|false}`',
      schemas.VERIFY_MAC,
      handlers.verifyMac,
      'whether it verifies',
    ),
    op(
      '/easy',
      'NaCl `crypto_box` of `payload` from this ED25519 key (as X25519) to `theirPub`: `{"cipherText","keyVersion"}`',
      schemas.EASY,
      handlers.easy,
      'the box',
    ),
    scoped(
      'keystore',
      'POST',
      '/easyopen',
      'crypto',
      'opens a NaCl box to the keystore key whose ED25519 public key is `myPub`: `{"plainText"}`',
      handlers.easyOpen,
      {
        body: schemas.EASY_OPEN,
        ok: 'the plaintext',
        notFound: 'unknown keystore, or no key of it has `myPub`',
      },
    ),
    scoped(
      'keystore',
      'POST',
      '/sealopen',
      'crypto',
      'opens a NaCl sealed box (`crypto_box_seal`) to the key whose ED25519 public key is `myPub`: `{"plainText"}`',
      handlers.sealOpen,
      {
        body: schemas.SEAL_OPEN,
        ok: 'the plaintext',
        notFound: 'unknown keystore, or no key of it has `myPub`',
      },
    ),
    scoped(
      'keystore',
      'POST',
      '/wrap',
      'crypto',
      'wraps `cek` for `recPubKey` (ECDH-ES anoncrypt, JOSE Concat KDF; A256KW, XC20PKW for X25519): `{"wrappedKey"}`',
      handlers.wrap,
      {
        body: schemas.WRAP,
        ok: 'the wrapped key',
      },
    ),
    op(
      '/wrap',
      'wraps `cek` for `recPubKey` from this ECDH key (ECDH-1PU authcrypt; `tag` enters the KDF): `{"wrappedKey","keyVersion"}`',
      schemas.WRAP,
      handlers.wrapWithSender,
      'the wrapped key',
    ),
    op(
      '/unwrap',
      'unwraps a `wrappedKey` addressed to this key (`senderPubKey` for ECDH-1PU): `{"key"}`',
      schemas.UNWRAP,
      handlers.unwrap,
      'the key',
    ),
    op(
      '/signmulti',
      'BBS signature (IETF draft, BLS12-381-SHA-256) of `messages`: `{"signature","keyVersion"}`',
      schemas.SIGN_MULTI,
      handlers.signMulti,
      'the signature',
    ),
    op(
      '/verifymulti',
      'verifies a BBS signature of `messages`: `{"verified":true|false}`',
      schemas.VERIFY_MULTI,
      handlers.verifyMulti,
      'whether it verifies',
    ),
    op(
      '/deriveproof',
      'a BBS proof disclosing `revealedIndexes`, bound to `nonce`: `{"proof"}`',
      schemas.DERIVE_PROOF,
      handlers.deriveProof,
      'the proof',
    ),
    op(
      '/verifyproof',
      'verifies a BBS proof of the revealed `messages` at `revealedIndexes`: `{"verified":true|false}`',
      schemas.VERIFY_PROOF,
      handlers.verifyProof,
      'whether it verifies',
    ),
  ];
  routes.push(openApiRoute(KMS_API_INFO, routes));
  return routes;
}
