import { base64UrlPaddedEncode as b64 } from '@anchor/common/encoding';
import { answer, type Handler } from '@anchor/common/http';
import { badRequest } from '@anchor/common/errors';
import type { BbsOperations } from '../crypto/bbs/index.js';
import { KmsCryptoError } from '../crypto/index.js';
import { unwrap, wrapAnoncrypt, wrapAuthcrypt } from '../crypto/wrap/index.js';
import type { Keystores } from '../keystores/keystores.js';
import type { KmsMetrics } from '../metrics.js';
import { firstThatOpens, KeystoreScope, KmsOperations } from './kms-operations.js';
import * as schemas from './schemas.js';
import {
  bytesListOf,
  bytesOf,
  optionalBytesOf,
  publicKeyFromWire,
  wrappedKeyFromWire,
  wrappedKeyToWire,
} from './wire-encoding.js';

export interface WrapBbsOptions {
  keystores: Keystores;
  metrics: KmsMetrics;
  baseUrl: () => string;
  bbs: BbsOperations;
}

/** Key wrap (ECDH-ES anoncrypt, ECDH-1PU authcrypt, unwrap) and BBS (signmulti ... verifyproof) as fast handlers. */
export function wrapAndBbsOperations({ keystores, metrics, baseUrl, bbs }: WrapBbsOptions) {
  const scope = new KeystoreScope(keystores, baseUrl);
  const ops = new KmsOperations(metrics, scope);
  /** A BBS key's public key of a version (the versions a check may use, newest first, when none is named). */
  const publicKeys = (
    key: Awaited<ReturnType<KeystoreScope['key']>>['key'],
    keyVersion: number | undefined,
  ): Buffer[] => {
    const versions = keyVersion === undefined ? [...key.versions].reverse() : [keystores.version(key, keyVersion)];
    return versions.map((version) => Buffer.from(version.publicKey ?? '', 'base64'));
  };

  return {
    wrap: ops.keystore('wrap', schemas.WRAP, (_keystore, body) => {
      const wrapped = wrapAnoncrypt(
        bytesOf(body.cek, 'cek'),
        optionalBytesOf(body.apu, 'apu'),
        optionalBytesOf(body.apv, 'apv'),
        publicKeyFromWire(body.recPubKey, 'recPubKey'),
      );
      return answer({ json: { wrappedKey: wrappedKeyToWire(wrapped) } });
    }),

    wrapWithSender: ops.withCurrentKey('wrap', schemas.WRAP, (material, body) => {
      const wrapped = wrapAuthcrypt(
        material,
        bytesOf(body.cek, 'cek'),
        optionalBytesOf(body.apu, 'apu'),
        optionalBytesOf(body.apv, 'apv'),
        publicKeyFromWire(body.recPubKey, 'recPubKey'),
        body.tag === undefined ? undefined : bytesOf(body.tag, 'tag'),
      );
      return { wrappedKey: wrappedKeyToWire(wrapped) };
    }),

    unwrap: ops.key('unwrap', schemas.UNWRAP, async ({ keystore, key }, body) => {
      const wrapped = wrappedKeyFromWire(body.wrappedKey);
      const sender = body.senderPubKey === undefined ? undefined : publicKeyFromWire(body.senderPubKey, 'senderPubKey');
      const tag = body.tag === undefined ? undefined : bytesOf(body.tag, 'tag');
      const cek = firstThatOpens(scope.candidates(keystore, key, body.keyVersion), (m) =>
        unwrap(m, wrapped, sender, tag),
      );
      return answer({ json: { key: b64(cek) } });
    }),

    signMulti: ops.withCurrentKey('sign_multi', schemas.SIGN_MULTI, async (material, body) => {
      const header = body.header === undefined ? undefined : bytesOf(body.header, 'header');
      return { signature: b64(await bbs.sign(material, bytesListOf(body.messages, 'messages'), header)) };
    }),

    verifyMulti: ops.key('verify_multi', schemas.VERIFY_MULTI, async ({ key }, body) => {
      const signature = bytesOf(body.signature, 'signature');
      const messages = bytesListOf(body.messages, 'messages');
      const header = body.header === undefined ? undefined : bytesOf(body.header, 'header');
      requireBbs(key.keyType);
      for (const publicKey of publicKeys(key, body.keyVersion))
        if (await bbs.verify(publicKey, signature, messages, header)) return answer({ json: { verified: true } });
      return answer({ json: { verified: false } });
    }),

    deriveProof: ops.key('derive_proof', schemas.DERIVE_PROOF, async ({ key }, body) => {
      const signature = bytesOf(body.signature, 'signature');
      const messages = bytesListOf(body.messages, 'messages');
      const nonce = bytesOf(body.nonce, 'nonce');
      const header = body.header === undefined ? undefined : bytesOf(body.header, 'header');
      requireBbs(key.keyType);
      const candidates = publicKeys(key, body.keyVersion);
      // The signature names no version: the first version it verifies under derives the proof.
      for (const publicKey of candidates.slice(0, -1))
        if (await bbs.verify(publicKey, signature, messages, header))
          return answer({
            json: {
              proof: b64(await bbs.deriveProof(publicKey, signature, messages, body.revealedIndexes, nonce, header)),
            },
          });
      const last = candidates.at(-1) as Buffer;
      return answer({
        json: { proof: b64(await bbs.deriveProof(last, signature, messages, body.revealedIndexes, nonce, header)) },
      });
    }),

    verifyProof: ops.key('verify_proof', schemas.VERIFY_PROOF, async ({ key }, body) => {
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
        if (await bbs.verifyProof(publicKey, proof, revealed, nonce, header))
          return answer({ json: { verified: true } });
      return answer({ json: { verified: false } });
    }),
  } satisfies Record<string, Handler>;
}

function requireBbs(keyType: string): void {
  if (keyType !== 'BLS12381G2')
    throw new KmsCryptoError('wrong-key-kind', `a ${keyType} key cannot make or check BBS signatures`);
}
