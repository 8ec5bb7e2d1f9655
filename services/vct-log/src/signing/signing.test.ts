import { canonicalize as jcs } from '@anchor/common/encoding';
import { KeyPair } from '@anchor/common/crypto';
import { describe, expect, it } from 'vitest';
import { LogSigner, verifyEnvelope } from './log-signer.js';
import { treeHeadSignaturePayload, vcTimestampSignaturePayload } from './payloads.js';

// vct-kms.md §A.7, V2 and V3: a Trillian root from the original's unit tests and a deterministic Ed25519 key.
const V2_ROOT = Buffer.from('b638e67aa0a6e0ac4ede1f4f31bc5948bbbe5cc872c6704ab80088f721d9056e', 'hex');
const V2_TIMESTAMP = 1617116456007;
const V3_SEED = Buffer.from(Array.from({ length: 32 }, (_, i) => i));

describe('signed payloads', () => {
  it('serialises the TreeHeadSignature of vector V2 exactly', () => {
    expect(treeHeadSignaturePayload(V2_TIMESTAMP, 1, V2_ROOT).toString()).toBe(
      '{"sha_256_root_hash":"tjjmeqCm4KxO3h9PMbxZSLu+XMhyxnBKuACI9yHZBW4=","signature_type":101,"timestamp":1617116456007,"tree_size":1,"version":0}',
    );
  });

  it('writes the VCTimestampSignature as the JCS of the original structure', () => {
    const vcEntry = Buffer.alloc(2500, 9).toString('base64');
    const expected = jcs({ svct_version: 0, signature_type: 100, timestamp: 1617977793917, entry_type: 100, vc_entry: vcEntry, extensions: null });
    expect(vcTimestampSignaturePayload(1617977793917, vcEntry).toString()).toBe(expected);
  });
});

describe('LogSigner', () => {
  const v3 = new LogSigner(KeyPair.fromSeed('Ed25519', V3_SEED));

  it('derives the public key and log id of vector V3', () => {
    expect(v3.publicKeyBytes.toString('base64')).toBe('A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=');
    expect(v3.logIdBase64).toBe('Vkdap1RjR0wChd9dvyvKtz2mUTWIOem3dIGy6rEHcIw=');
    expect(v3.algorithm).toEqual({ signature: 'EDDSA', type: 'ED25519' });
  });

  it('produces the tree_head_signature of vector V3 byte for byte', () => {
    const envelope = v3.signEnvelope(treeHeadSignaturePayload(V2_TIMESTAMP, 1, V2_ROOT));
    expect(envelope).toBe(
      'eyJhbGdvcml0aG0iOnsic2lnbmF0dXJlIjoiRUREU0EiLCJ0eXBlIjoiRUQyNTUxOSJ9LCJzaWduYXR1cmUiOiJwWFQzZWlMTWQzY1VhSHBOb0c0cHlMc2pnQW1QM2xvcDFRU2JFSFB3SkRLOGJpcGhlZmZxUWhWNU1xWGhmcW9GUmZ0NjRjZHE0ZmpiRHpCVms5UDZBdz09In0=',
    );
    expect(JSON.parse(Buffer.from(envelope, 'base64').toString())).toEqual({
      algorithm: { signature: 'EDDSA', type: 'ED25519' },
      signature: 'pXT3eiLMd3cUaHpNoG4pyLsjgAmP3lop1QSbEHPwJDK8bipheffqQhV5MqXhfqoFRft64cdq4fjbDzBVk9P6Aw==',
    });
  });

  it('signs with P-256 in the ECDSAP256IEEEP1363 envelope, verifiable with the 65-byte point', () => {
    const signer = new LogSigner(KeyPair.generate('P-256'));
    expect(signer.publicKeyBytes).toHaveLength(65);
    expect(signer.publicKeyBytes[0]).toBe(4);
    const payload = treeHeadSignaturePayload(1, 2, V2_ROOT);
    const envelope = signer.signEnvelope(payload);
    const parsed = JSON.parse(Buffer.from(envelope, 'base64').toString()) as { algorithm: unknown; signature: string };
    expect(Object.keys(parsed)).toEqual(['algorithm', 'signature']);
    expect(parsed.algorithm).toEqual({ signature: 'ECDSA', type: 'ECDSAP256IEEEP1363' });
    expect(Buffer.from(parsed.signature, 'base64')).toHaveLength(64);
    expect(verifyEnvelope(envelope, payload, signer.publicKeyBytes)).toBe(true);
  });

  it('verification fails for another payload, another key, or a malformed envelope', () => {
    const payload = vcTimestampSignaturePayload(5, 'QQ==');
    const envelope = v3.signEnvelope(payload);
    expect(verifyEnvelope(envelope, payload, v3.publicKeyBytes)).toBe(true);
    expect(verifyEnvelope(envelope, vcTimestampSignaturePayload(6, 'QQ=='), v3.publicKeyBytes)).toBe(false);
    expect(verifyEnvelope(envelope, payload, new LogSigner(KeyPair.generate('Ed25519')).publicKeyBytes)).toBe(false);
    expect(verifyEnvelope('not base64!', payload, v3.publicKeyBytes)).toBe(false);
    expect(verifyEnvelope(Buffer.from('{"algorithm":{"signature":"ECDSA","type":"ED25519"},"signature":""}').toString('base64'), payload, v3.publicKeyBytes)).toBe(false);
  });

  it('refuses keys a log cannot sign with', () => {
    expect(() => new LogSigner(KeyPair.generate('secp256k1'))).toThrow(/Ed25519 or P-256/);
    expect(() => new LogSigner(KeyPair.generate('Ed25519').toPublic())).toThrow(/private/);
  });
});
