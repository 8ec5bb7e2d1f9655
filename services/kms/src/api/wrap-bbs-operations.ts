import { base64UrlPaddedEncode as b64 } from '@anchor/common/encoding';
import { jsonBody, type FastHandler } from '@anchor/common/http';
import { badRequest } from '@anchor/common/errors';
import type { BbsOperations } from '../crypto/bbs/index.js';
import { KmsCryptoError } from '../crypto/index.js';
import { unwrap, wrapAnoncrypt, wrapAuthcrypt } from '../crypto/wrap/index.js';
import type { Keystores } from '../keystores/keystores.js';
import type { KmsMetrics } from '../metrics.js';
import { firstThatOpens, json, KeystoreScope, measuredOperation } from './kms-operations.js';
import { bytesListOf, bytesOf, optionalBytesOf } from './request-body.js';
import * as schemas from './schemas.js';
import { publicKeyFromWire, wrappedKeyFromWire, wrappedKeyToWire } from './wire-keys.js';

export interface WrapBbsOptions {
  keystores: Keystores;
  metrics: KmsMetrics;
  baseUrl: () => string;
  bbs: BbsOperations;
}

/** Key wrap (ECDH-ES anoncrypt, ECDH-1PU authcrypt, unwrap) and BBS (signmulti ... verifyproof) as fast handlers. */
export function wrapAndBbsOperations({ keystores, metrics, baseUrl, bbs }: WrapBbsOptions) {
  const scope = new KeystoreScope(keystores, baseUrl);
  const op = measuredOperation(metrics);
  /** A BBS key's public key of a version (the versions a check may use, newest first, when none is named). */
  const publicKeys = (
    key: Awaited<ReturnType<KeystoreScope['key']>>['key'],
    keyVersion: number | undefined,
  ): Buffer[] => {
    const versions = keyVersion === undefined ? [...key.versions].reverse() : [keystores.version(key, keyVersion)];
    return versions.map((version) => Buffer.from(version.publicKey ?? '', 'base64'));
  };

  return {
    wrap: op('wrap', async (req) => {
      await scope.keystore(req);
      const body = jsonBody(req, schemas.WRAP);
      const wrapped = wrapAnoncrypt(
        bytesOf(body.cek, 'cek'),
        optionalBytesOf(body.apu, 'apu'),
        optionalBytesOf(body.apv, 'apv'),
        publicKeyFromWire(body.recPubKey, 'recPubKey'),
      );
      return json({ wrappedKey: wrappedKeyToWire(wrapped) });
    }),

    wrapWithSender: op('wrap', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.WRAP);
      const { material, version } = scope.current(keystore, key);
      const wrapped = wrapAuthcrypt(
        material,
        bytesOf(body.cek, 'cek'),
        optionalBytesOf(body.apu, 'apu'),
        optionalBytesOf(body.apv, 'apv'),
        publicKeyFromWire(body.recPubKey, 'recPubKey'),
        body.tag === undefined ? undefined : bytesOf(body.tag, 'tag'),
      );
      return json({ wrappedKey: wrappedKeyToWire(wrapped), keyVersion: version.version });
    }),

    unwrap: op('unwrap', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.UNWRAP);
      const wrapped = wrappedKeyFromWire(body.wrappedKey);
      const sender = body.senderPubKey === undefined ? undefined : publicKeyFromWire(body.senderPubKey, 'senderPubKey');
      const tag = body.tag === undefined ? undefined : bytesOf(body.tag, 'tag');
      const cek = firstThatOpens(scope.candidates(keystore, key, body.keyVersion), (m) =>
        unwrap(m, wrapped, sender, tag),
      );
      return json({ key: b64(cek) });
    }),

    signMulti: op('sign_multi', async (req) => {
      const { keystore, key } = await scope.key(req);
      const body = jsonBody(req, schemas.SIGN_MULTI);
      const { material, version } = scope.current(keystore, key);
      const header = body.header === undefined ? undefined : bytesOf(body.header, 'header');
      const signature = await bbs.sign(material, bytesListOf(body.messages, 'messages'), header);
      return json({ signature: b64(signature), keyVersion: version.version });
    }),

    verifyMulti: op('verify_multi', async (req) => {
      const { key } = await scope.key(req);
      const body = jsonBody(req, schemas.VERIFY_MULTI);
      const signature = bytesOf(body.signature, 'signature');
      const messages = bytesListOf(body.messages, 'messages');
      const header = body.header === undefined ? undefined : bytesOf(body.header, 'header');
      requireBbs(key.keyType);
      for (const publicKey of publicKeys(key, body.keyVersion))
        if (await bbs.verify(publicKey, signature, messages, header)) return json({ verified: true });
      return json({ verified: false });
    }),

    deriveProof: op('derive_proof', async (req) => {
      const { key } = await scope.key(req);
      const body = jsonBody(req, schemas.DERIVE_PROOF);
      const signature = bytesOf(body.signature, 'signature');
      const messages = bytesListOf(body.messages, 'messages');
      const nonce = bytesOf(body.nonce, 'nonce');
      const header = body.header === undefined ? undefined : bytesOf(body.header, 'header');
      requireBbs(key.keyType);
      const candidates = publicKeys(key, body.keyVersion);
      // The signature names no version: the first version it verifies under derives the proof.
      for (const publicKey of candidates.slice(0, -1))
        if (await bbs.verify(publicKey, signature, messages, header))
          return json({
            proof: b64(await bbs.deriveProof(publicKey, signature, messages, body.revealedIndexes, nonce, header)),
          });
      const last = candidates.at(-1) as Buffer;
      return json({
        proof: b64(await bbs.deriveProof(last, signature, messages, body.revealedIndexes, nonce, header)),
      });
    }),

    verifyProof: op('verify_proof', async (req) => {
      const { key } = await scope.key(req);
      const body = jsonBody(req, schemas.VERIFY_PROOF);
      const proof = bytesOf(body.proof, 'proof');
      const messages = bytesListOf(body.messages, 'messages');
      if (messages.length !== body.revealedIndexes.length)
        throw badRequest(
          'messages and revealedIndexes must have the same length (the revealed messages and their indexes)',
        );
      const revealed = body.revealedIndexes.map((index, i) => ({ index, message: messages[i] as Buffer }));
      const nonce = bytesOf(body.nonce, 'nonce');
      const header = body.header === undefined ? undefined : bytesOf(body.header, 'header');
      requireBbs(key.keyType);
      for (const publicKey of publicKeys(key, body.keyVersion))
        if (await bbs.verifyProof(publicKey, proof, revealed, nonce, header)) return json({ verified: true });
      return json({ verified: false });
    }),
  } satisfies Record<string, FastHandler>;
}

function requireBbs(keyType: string): void {
  if (keyType !== 'BLS12381G2')
    throw new KmsCryptoError('wrong-key-kind', `a ${keyType} key cannot make or check BBS signatures`);
}
