import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as digitalbazaar from '@digitalbazaar/bbs-signatures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KmsCryptoError } from '../errors.js';
import { generateKey, rawSecret, type KeyMaterial } from '../index.js';
import { createBbs, generateBbsKey, importBbsKey, bbsPublicKey, type BbsOperations } from './index.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const messages = Array.from({ length: 6 }, (_, i) => utf8(`claim ${i}`));
const header = utf8('issuer context');
const nonce = utf8('verifier nonce');

async function failure(run: () => Promise<unknown>): Promise<KmsCryptoError> {
  const error = await run().then(
    () => undefined,
    (reason: unknown) => reason,
  );
  // By name: the worker-pool suite runs the built module, whose KmsCryptoError is another class object.
  expect(error).toMatchObject({ name: 'KmsCryptoError' });
  return error as KmsCryptoError;
}

describe('BBS keys', () => {
  it('generates a key whose secret is the format byte and a 32-byte scalar, and derives its public key', async () => {
    const key = generateBbsKey();
    expect(key.type).toBe('BLS12381G2');
    expect(key.secret).toHaveLength(33);
    const publicKey = bbsPublicKey(key);
    expect(publicKey).toHaveLength(96);
    const independent = await digitalbazaar.secretKeyToPublicKey({
      secretKey: rawSecret(key),
      ciphersuite: 'BLS12-381-SHA-256',
    });
    expect(Buffer.from(publicKey)).toEqual(Buffer.from(independent));
    expect(Buffer.from(generateBbsKey().secret)).not.toEqual(Buffer.from(key.secret));
  });

  it("imports the draft's secret key octets (the fixture key gives the fixture public key)", () => {
    const fixture = JSON.parse(
      readFileSync(new URL('./vectors/bls12-381-sha-256/keypair.json', import.meta.url), 'utf8'),
    );
    const key = importBbsKey(Buffer.from(fixture.keyPair.secretKey, 'hex'));
    expect(Buffer.from(bbsPublicKey(key)).toString('hex')).toBe(fixture.keyPair.publicKey);
  });

  it('refuses a secret of the wrong length or outside [1, r-1]', () => {
    expect(() => importBbsKey(new Uint8Array(31))).toThrow('a BLS12381G2 key is a 32-byte scalar, got 31 bytes');
    expect(() => importBbsKey(new Uint8Array(32))).toThrow('between 1 and r-1');
    const r = Buffer.from('73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001', 'hex');
    expect(() => importBbsKey(r)).toThrow(KmsCryptoError);
    expect(() => bbsPublicKey(generateKey('ED25519'))).toThrow(expect.objectContaining({ code: 'wrong-key-kind' }));
  });
});

function behavesAsBbs(name: string, open: () => Promise<BbsOperations>): void {
  describe(name, () => {
    let bbs: BbsOperations;
    let key: KeyMaterial;
    let publicKey: Uint8Array;
    beforeAll(async () => {
      bbs = await open();
      key = generateBbsKey();
      publicKey = bbsPublicKey(key);
    });
    afterAll(() => bbs.close());

    it('signs and verifies; another message, header or key does not verify', async () => {
      const signature = await bbs.sign(key, messages, header);
      expect(signature).toHaveLength(80);
      expect(await bbs.verify(publicKey, signature, messages, header)).toBe(true);
      expect(
        await digitalbazaar.verifySignature({
          publicKey,
          signature,
          header,
          messages,
          ciphersuite: 'BLS12-381-SHA-256',
        }),
      ).toBe(true);
      expect(await bbs.verify(publicKey, signature, [...messages.slice(0, 5), utf8('claim 6')], header)).toBe(false);
      expect(await bbs.verify(publicKey, signature, messages)).toBe(false);
      expect(await bbs.verify(bbsPublicKey(generateBbsKey()), signature, messages, header)).toBe(false);
      expect(await bbs.verify(publicKey, new Uint8Array(80), messages, header)).toBe(false);
    });

    it('derives a proof for revealed indexes given in any order; it verifies with the revealed messages only', async () => {
      const signature = await bbs.sign(key, messages, header);
      const proof = await bbs.deriveProof(publicKey, signature, messages, [4, 1], nonce, header);
      const revealed = [
        { index: 4, message: messages[4]! },
        { index: 1, message: messages[1]! },
      ];
      expect(await bbs.verifyProof(publicKey, proof, revealed, nonce, header)).toBe(true);
      expect(await bbs.verifyProof(publicKey, proof, revealed, utf8('another nonce'), header)).toBe(false);
      expect(
        await bbs.verifyProof(
          publicKey,
          proof,
          [
            { index: 4, message: messages[4]! },
            { index: 2, message: messages[1]! },
          ],
          nonce,
          header,
        ),
      ).toBe(false);
      expect(await bbs.verifyProof(publicKey, proof, revealed, nonce)).toBe(false);
      expect(await bbs.verifyProof(publicKey, proof.subarray(0, proof.length - 32), revealed, nonce, header)).toBe(
        false,
      );
    });

    it('rejects bad input with KmsCryptoError', async () => {
      const signature = await bbs.sign(key, messages);
      expect((await failure(() => bbs.sign(generateKey('ED25519'), messages))).code).toBe('wrong-key-kind');
      expect((await failure(() => bbs.verify(publicKey.subarray(1), signature, messages))).message).toBe(
        'publicKey must be 96 bytes, got 95',
      );
      expect((await failure(() => bbs.verify(publicKey, signature.subarray(1), messages))).message).toBe(
        'signature must be 80 bytes, got 79',
      );
      expect((await failure(() => bbs.sign(key, ['x' as unknown as Uint8Array]))).message).toBe(
        'messages[0] must be bytes',
      );
      expect(
        (
          await failure(() =>
            bbs.sign(
              key,
              Array.from({ length: 1025 }, () => new Uint8Array()),
            ),
          )
        ).message,
      ).toContain('more than 1024');
      expect((await failure(() => bbs.deriveProof(publicKey, signature, messages, [6], nonce))).message).toBe(
        'revealedIndexes[0] must be a whole number from 0 to 5, got 6',
      );
      expect((await failure(() => bbs.deriveProof(publicKey, signature, messages, [1, 1], nonce))).message).toBe(
        'revealedIndexes names index 1 twice',
      );
      expect((await failure(() => bbs.deriveProof(publicKey, signature, messages, [0], nonce, header))).message).toBe(
        'signature does not verify for these messages and header',
      );
      expect(
        (await failure(() => bbs.verifyProof(publicKey, signature, [{ index: -1, message: messages[0]! }], nonce)))
          .code,
      ).toBe('bad-input');
      expect(
        (
          await failure(() =>
            bbs.verifyProof(publicKey, new Uint8Array(272 + 32 * 1024), [{ index: 0, message: messages[0]! }], nonce),
          )
        ).message,
      ).toBe('proof covers 1025 messages, more than 1024');
    });

    it('signs an empty list of messages (the header alone)', async () => {
      const signature = await bbs.sign(key, [], header);
      expect(await bbs.verify(publicKey, signature, [], header)).toBe(true);
      expect(await bbs.verify(publicKey, signature, [new Uint8Array()], header)).toBe(false);
    });
  });
}

behavesAsBbs('BBS on the calling thread', () => createBbs({ threads: 0 }));

// The pool runs the built worker (dist/), as the service does (CI builds before it tests), in a process of its
// own: worker threads started from this test process would inherit its `development` condition and load sources.
describe('BBS on worker threads (built dist/, own process)', () => {
  it('signs, verifies, derives and verifies a proof on two threads; a bad input comes back as KmsCryptoError', () => {
    const built = new URL('../../../dist/crypto/bbs/index.js', import.meta.url);
    if (!existsSync(built))
      throw new Error(`${built.pathname} is missing: build first with \`npx tsc -b services/kms\``);
    const script = `
      const { createBbs, generateBbsKey, bbsPublicKey } = await import(${JSON.stringify(built.href)});
      const { threadId } = await import('node:worker_threads');
      const bbs = await createBbs({ threads: 2 });
      const key = generateBbsKey();
      const pk = bbsPublicKey(key);
      const messages = ['a', 'b', 'c'].map((m) => new TextEncoder().encode(m));
      const signatures = await Promise.all(Array.from({ length: 4 }, () => bbs.sign(key, messages)));
      const proof = await bbs.deriveProof(pk, signatures[0], messages, [2], new Uint8Array([1]));
      const error = await bbs.deriveProof(pk, signatures[0], messages, [3], new Uint8Array()).catch((e) => e);
      const wrong = await bbs.deriveProof(pk, signatures[0], messages.slice(1), [0], new Uint8Array()).catch((e) => e);
      console.log(JSON.stringify({
        threads: bbs.threads,
        mainThread: threadId,
        sameSignatures: signatures.every((s) => Buffer.from(s).equals(Buffer.from(signatures[0]))),
        verified: await bbs.verify(pk, signatures[0], messages),
        proofVerified: await bbs.verifyProof(pk, proof, [{ index: 2, message: messages[2] }], new Uint8Array([1])),
        error: { name: error.name, code: error.code, message: error.message },
        fromWorker: { name: wrong.name, code: wrong.code, message: wrong.message },
      }));
      await bbs.close();
    `;
    // A script file, not --input-type: worker threads inherit the process's execArgv.
    const folder = mkdtempSync(join(tmpdir(), 'kms-bbs-'));
    const file = join(folder, 'pool.mjs');
    writeFileSync(file, script);
    const { NODE_OPTIONS: _options, ...env } = process.env;
    const run = spawnSync(process.execPath, [file], { env, encoding: 'utf8', timeout: 60_000 });
    rmSync(folder, { recursive: true, force: true });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      threads: 2,
      mainThread: 0,
      sameSignatures: true,
      verified: true,
      proofVerified: true,
      error: {
        name: 'KmsCryptoError',
        code: 'bad-input',
        message: 'revealedIndexes[0] must be a whole number from 0 to 2, got 3',
      },
      // Found out on a worker thread (the signature is checked there) and handed back as the same error type.
      fromWorker: {
        name: 'KmsCryptoError',
        code: 'bad-input',
        message: 'signature does not verify for these messages and header',
      },
    });
  });
});
