import { KeyPair } from '@anchor/common/crypto';
import { treeHeadSignaturePayload, verifyEnvelope } from '@anchor/common/vct';
import { describe, expect, it } from 'vitest';
import { LogSigner } from './log-signer.js';

// The envelope bytes themselves (vectors V2/V3, both key types) are tested with the wire format in @anchor/common/vct.
describe('LogSigner', () => {
  const v3 = new LogSigner(KeyPair.fromSeed('Ed25519', Buffer.from(Array.from({ length: 32 }, (_, i) => i))));

  it('names the log of vector V3 and signs in its envelope', () => {
    expect(v3.publicKeyBytes.toString('base64')).toBe('A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=');
    expect(v3.logIdBase64).toBe('Vkdap1RjR0wChd9dvyvKtz2mUTWIOem3dIGy6rEHcIw=');
    expect(v3.algorithm).toEqual({ signature: 'EDDSA', type: 'ED25519' });
    const payload = treeHeadSignaturePayload(1617116456007, 1, Buffer.alloc(32));
    expect(verifyEnvelope(v3.signEnvelope(payload), payload, v3.publicKeyBytes)).toBe(true);
  });

  it('signs with P-256 keys, published as the 65-byte point', () => {
    const signer = new LogSigner(KeyPair.generate('P-256'));
    expect(signer.keyType).toBe('P-256');
    expect(signer.publicKeyBytes).toHaveLength(65);
    expect(signer.algorithm).toEqual({ signature: 'ECDSA', type: 'ECDSAP256IEEEP1363' });
    const payload = treeHeadSignaturePayload(1, 2, Buffer.alloc(32));
    expect(verifyEnvelope(signer.signEnvelope(payload), payload, signer.publicKeyBytes)).toBe(true);
    expect(() => signer.selfTest()).not.toThrow();
  });

  it('refuses keys a log cannot sign with', () => {
    expect(() => new LogSigner(KeyPair.generate('secp256k1'))).toThrow(/Ed25519 or P-256/);
    expect(() => new LogSigner(KeyPair.generate('Ed25519').toPublic())).toThrow(/private/);
  });
});
