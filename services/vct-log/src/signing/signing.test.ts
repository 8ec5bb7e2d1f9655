import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { treeHeadSignaturePayload, verifyEnvelope } from '@anchor/common/vct';
import { makeTempDir } from '@anchor/testing/process';
import { describe, expect, it } from 'vitest';
import { LogSigner } from './log-signer.js';
import { SignedTreeHeads } from './signed-tree-heads.js';
import { TreeHighWater } from './tree-high-water.js';

// The envelope bytes themselves (vectors V2/V3, both key types) are tested with the wire format in @anchor/common/vct;
// the log signing through the kms in test/integration (kms-federation).
describe('LogSigner', () => {
  const v3 = LogSigner.local(KeyPair.fromSeed('Ed25519', Buffer.from(Array.from({ length: 32 }, (_, i) => i))));

  it('names the log of vector V3 and signs in its envelope', async () => {
    expect(v3.publicKeyBytes.toString('base64')).toBe('A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=');
    expect(v3.logIdBase64).toBe('Vkdap1RjR0wChd9dvyvKtz2mUTWIOem3dIGy6rEHcIw=');
    expect(v3.algorithm).toEqual({ signature: 'EDDSA', type: 'ED25519' });
    const payload = treeHeadSignaturePayload(1617116456007, 1, Buffer.alloc(32));
    expect(verifyEnvelope(await v3.signEnvelope(payload), payload, v3.publicKeyBytes)).toBe(true);
  });

  it('signs with P-256 keys, published as the 65-byte point', async () => {
    const signer = LogSigner.local(KeyPair.generate('P-256'));
    expect(signer.keyType).toBe('P-256');
    expect(signer.publicKeyBytes).toHaveLength(65);
    expect(signer.algorithm).toEqual({ signature: 'ECDSA', type: 'ECDSAP256IEEEP1363' });
    const payload = treeHeadSignaturePayload(1, 2, Buffer.alloc(32));
    expect(verifyEnvelope(await signer.signEnvelope(payload), payload, signer.publicKeyBytes)).toBe(true);
    expect(await signer.health()).toBe('success');
  });

  it('gives worker threads a setup that makes the same signer', async () => {
    const key = KeyPair.generate('Ed25519');
    const worker = await LogSigner.fromSetup(LogSigner.local(key).setup);
    expect(worker.publicKeyBytes).toEqual(key.publicKeyBytes());
  });

  it('refuses keys a log cannot sign with', () => {
    expect(() => LogSigner.local(KeyPair.generate('secp256k1'))).toThrow(/Ed25519 or P-256/);
    expect(() => LogSigner.local(KeyPair.generate('Ed25519').toPublic())).toThrow(/private/);
  });
});

describe('SignedTreeHeads', () => {
  it('signs a head once, and again only when the head changes', async () => {
    let signatures = 0;
    const key = KeyPair.generate('P-256');
    const counting = LogSigner.local(key);
    const sign = counting.signEnvelope.bind(counting);
    counting.signEnvelope = (payload) => {
      signatures++;
      return sign(payload);
    };
    const dir = await makeTempDir('vct-sth-');
    const highWater = await TreeHighWater.open(join(dir.path, 'high-water.json'));
    const heads = new SignedTreeHeads(counting, highWater);
    const head = { size: 1, timestamp: 5, root: Buffer.alloc(32, 1) };
    const [a, b] = await Promise.all([heads.body('main', head), heads.body('main', head)]);
    expect(a).toBe(b);
    expect(signatures).toBe(1);
    const sth = JSON.parse(a) as { tree_head_signature: string; sha256_root_hash: string };
    const payload = treeHeadSignaturePayload(5, 1, head.root);
    expect(verifyEnvelope(sth.tree_head_signature, payload, key.publicKeyBytes())).toBe(true);
    expect(highWater.get('main')?.size).toBe(1);
    await heads.body('main', { ...head, size: 2 });
    expect(signatures).toBe(2);
    expect(highWater.get('main')?.size).toBe(2);
    await dir.remove();
  });

  it('still serves a head when its high-water mark cannot be written (disk full), and records a later one', async () => {
    const dir = await makeTempDir('vct-sth-');
    const file = join(dir.path, 'high-water.json');
    const highWater = await TreeHighWater.open(file);
    const heads = new SignedTreeHeads(LogSigner.local(KeyPair.generate('Ed25519')), highWater);
    // A directory where the file should be: every write of the mark fails.
    await mkdir(file);
    const head = { size: 1, timestamp: 5, root: Buffer.alloc(32, 1) };
    expect(JSON.parse(await heads.body('main', head)).tree_size).toBe(1);
    await rm(file, { recursive: true });
    await heads.body('main', { ...head, size: 2, timestamp: 6 });
    expect((await TreeHighWater.open(file)).get('main')?.size).toBe(2);
    await dir.remove();
  });
});
