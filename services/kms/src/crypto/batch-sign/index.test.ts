import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateKey, sign, verify } from '../index.js';
import { createBatchSigner } from './index.js';

const messages = (count: number) => Array.from({ length: count }, (_, i) => new TextEncoder().encode(`message ${i}`));

describe('batch signing on the calling thread', () => {
  it('signs each message as sign does, in order, and refuses a key that does not sign', async () => {
    const signer = await createBatchSigner({ threads: 0 });
    const key = generateKey('ED25519');
    const batch = messages(20);
    const signatures = await signer.signAll('k/1', key, batch);
    expect(signatures.map((s) => Buffer.from(s).toString('hex'))).toEqual(
      batch.map((m) => Buffer.from(sign(key, m)).toString('hex')),
    );
    const p256 = generateKey('ECDSAP256DER');
    const ecdsa = await signer.signAll('p/1', p256, batch);
    expect(ecdsa.every((signature, i) => verify(p256, signature, batch[i] as Uint8Array))).toBe(true);
    await expect(signer.signAll('a/1', generateKey('AES256GCM'), batch)).rejects.toMatchObject({
      name: 'KmsCryptoError',
      code: 'wrong-key-kind',
    });
    await signer.close();
  });
});

// The pool runs the built worker (dist/), as the service does, in a process of its own: worker threads started
// from this test process would inherit its `development` condition and load sources.
describe('batch signing on worker threads (built dist/, own process)', () => {
  it('spreads a batch over two threads, answers in order, and hands a refusal back as KmsCryptoError', () => {
    const built = new URL('../../../dist/crypto/batch-sign/index.js', import.meta.url);
    const crypto = new URL('../../../dist/crypto/index.js', import.meta.url);
    if (!existsSync(built))
      throw new Error(`${built.pathname} is missing: build first with \`npx tsc -b services/kms\``);
    const script = `
      const { createBatchSigner } = await import(${JSON.stringify(built.href)});
      const { generateKey, sign } = await import(${JSON.stringify(crypto.href)});
      const signer = await createBatchSigner({ threads: 2 });
      const key = generateKey('ED25519');
      const batch = Array.from({ length: 101 }, (_, i) => new TextEncoder().encode('message ' + i));
      const hex = (list) => list.map((s) => Buffer.from(s).toString('hex'));
      const twice = await Promise.all([signer.signAll('k/1', key, batch), signer.signAll('k/1', key, batch)]);
      const expected = hex(batch.map((m) => sign(key, m)));
      const refused = await signer.signAll('a/1', generateKey('AES256GCM'), batch).catch((e) => e);
      console.log(JSON.stringify({
        threads: signer.threads,
        inOrder: twice.every((signatures) => JSON.stringify(hex(signatures)) === JSON.stringify(expected)),
        count: twice[0].length,
        refused: { name: refused.name, code: refused.code },
      }));
      await signer.close();
    `;
    // A script file, not --input-type: worker threads inherit the process's execArgv.
    const folder = mkdtempSync(join(tmpdir(), 'kms-batch-sign-'));
    const file = join(folder, 'pool.mjs');
    writeFileSync(file, script);
    const { NODE_OPTIONS: _options, ...env } = process.env;
    const run = spawnSync(process.execPath, [file], { env, encoding: 'utf8', timeout: 60_000 });
    rmSync(folder, { recursive: true, force: true });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      threads: 2,
      inOrder: true,
      count: 101,
      refused: { name: 'KmsCryptoError', code: 'wrong-key-kind' },
    });
  });
});
