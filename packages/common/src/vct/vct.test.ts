import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { canonicalize as jcs } from '../encoding/index.js';
import { leafHash } from '../merkle/index.js';
import {
  buildLeafInput,
  envelopeProblem,
  leafHashOf,
  leafObject,
  logIdOf,
  parseLeafInput,
  signatureAlgorithmOf,
  signEnvelope,
  treeHeadSignaturePayload,
  vcEntryOf,
  vcTimestampSignaturePayload,
  verifyEnvelope,
} from './index.js';

// vct-kms.md §A.7, V2 and V3: a Trillian root from trustbloc/vct's unit tests and a deterministic Ed25519 key.
const V2_ROOT = Buffer.from('b638e67aa0a6e0ac4ede1f4f31bc5948bbbe5cc872c6704ab80088f721d9056e', 'hex');
const V2_TIMESTAMP = 1617116456007;
const V3_KEY = KeyPair.fromSeed('Ed25519', Buffer.from(Array.from({ length: 32 }, (_, i) => i)));

describe('reference vectors', () => {
  it('V2: serialises the TreeHeadSignature exactly', () => {
    expect(treeHeadSignaturePayload(V2_TIMESTAMP, 1, V2_ROOT).toString()).toBe(
      '{"sha_256_root_hash":"tjjmeqCm4KxO3h9PMbxZSLu+XMhyxnBKuACI9yHZBW4=","signature_type":101,"timestamp":1617116456007,"tree_size":1,"version":0}',
    );
  });

  it('V3: the public key and the log id', () => {
    expect(V3_KEY.publicKeyBytes().toString('base64')).toBe('A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=');
    expect(logIdOf(V3_KEY.publicKeyBytes()).toString('base64')).toBe('Vkdap1RjR0wChd9dvyvKtz2mUTWIOem3dIGy6rEHcIw=');
  });

  it('V3: the tree_head_signature over V2 byte for byte', () => {
    const envelope = signEnvelope(V3_KEY, treeHeadSignaturePayload(V2_TIMESTAMP, 1, V2_ROOT));
    expect(envelope).toBe(
      'eyJhbGdvcml0aG0iOnsic2lnbmF0dXJlIjoiRUREU0EiLCJ0eXBlIjoiRUQyNTUxOSJ9LCJzaWduYXR1cmUiOiJwWFQzZWlMTWQzY1VhSHBOb0c0cHlMc2pnQW1QM2xvcDFRU2JFSFB3SkRLOGJpcGhlZmZxUWhWNU1xWGhmcW9GUmZ0NjRjZHE0ZmpiRHpCVms5UDZBdz09In0=',
    );
    expect(JSON.parse(Buffer.from(envelope, 'base64').toString())).toEqual({
      algorithm: { signature: 'EDDSA', type: 'ED25519' },
      signature: 'pXT3eiLMd3cUaHpNoG4pyLsjgAmP3lop1QSbEHPwJDK8bipheffqQhV5MqXhfqoFRft64cdq4fjbDzBVk9P6Aw==',
    });
    expect(verifyEnvelope(envelope, treeHeadSignaturePayload(V2_TIMESTAMP, 1, V2_ROOT), V3_KEY.publicKeyBytes())).toBe(
      true,
    );
  });
});

describe('MerkleTreeLeaf', () => {
  const vcEntry = vcEntryOf(
    '_:c14n0 <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://www.w3.org/2018/credentials#VerifiableCredential> .\n',
  );

  it("writes exactly the JCS of trustbloc/vct's leaf structure", () => {
    const leafInput = buildLeafInput(1617107246070, vcEntry);
    expect(leafInput).toBe(jcs(leafObject(1617107246070, vcEntry)));
    expect(leafInput).toBe(
      `{"leaf_type":100,"timestamped_entry":{"entry_type":100,"extensions":null,"timestamp":1617107246070,"vc_entry":"${vcEntry}"},"version":0}`,
    );
  });

  it('keeps equal to the general serialiser for any timestamp and entry', () => {
    for (const [timestamp, entry] of [
      [0, ''],
      [1, 'QQ=='],
      [Number.MAX_SAFE_INTEGER, 'ab+/'],
      [1795296848632, Buffer.alloc(3000, 7).toString('base64')],
    ] as const) {
      expect(buildLeafInput(timestamp, entry)).toBe(jcs(leafObject(timestamp, entry)));
    }
  });

  it('refuses fields the direct serialisation could not write as JCS', () => {
    expect(() => buildLeafInput(1.5, vcEntry)).toThrow(/non-negative integer/);
    expect(() => buildLeafInput(-1, vcEntry)).toThrow(/non-negative integer/);
    expect(() => buildLeafInput(1, 'not "base64"')).toThrow(/base64/);
    expect(() => vcTimestampSignaturePayload(1, 'back\\slash')).toThrow(/base64/);
  });

  it('hashes the leaf as an RFC 6962 leaf of its JCS bytes', () => {
    const leafInput = buildLeafInput(12345, vcEntry);
    expect(leafHashOf(leafInput)).toEqual(leafHash(Buffer.from(leafInput)));
    expect(leafHashOf(leafInput)).toEqual(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from([0]), Buffer.from(leafInput)]))
        .digest(),
    );
  });

  it('parses leaves back and rejects anything else', () => {
    expect(parseLeafInput(buildLeafInput(42, vcEntry)).timestamped_entry).toEqual({
      timestamp: 42,
      entry_type: 100,
      vc_entry: vcEntry,
      extensions: null,
    });
    expect(() => parseLeafInput('{"version":1,"leaf_type":100,"timestamped_entry":{}}')).toThrow(/V1/);
    expect(() => parseLeafInput('{"version":0,"leaf_type":100}')).toThrow(/V1/);
    expect(() => parseLeafInput('null')).toThrow(/V1/);
  });
});

describe('VCTimestampSignature', () => {
  it("is the JCS of trustbloc/vct's structure, written out directly", () => {
    const vcEntry = Buffer.alloc(2500, 9).toString('base64');
    const expected = jcs({
      svct_version: 0,
      signature_type: 100,
      timestamp: 1617977793917,
      entry_type: 100,
      vc_entry: vcEntry,
      extensions: null,
    });
    expect(vcTimestampSignaturePayload(1617977793917, vcEntry).toString()).toBe(expected);
  });

  it('is what a client rebuilds from N-Quads and a timestamp', () => {
    const nquads = '<urn:a> <urn:b> "c" .\n';
    expect(vcTimestampSignaturePayload(1_617_107_246_070, vcEntryOf(nquads)).toString()).toBe(
      `{"entry_type":100,"extensions":null,"signature_type":100,"svct_version":0,"timestamp":1617107246070,"vc_entry":"${Buffer.from(nquads).toString('base64')}"}`,
    );
  });
});

describe('DigitallySigned', () => {
  const payload = vcTimestampSignaturePayload(5, 'QQ==');
  const envelopeOf = (type: string, signature: Buffer): string =>
    Buffer.from(
      JSON.stringify({
        algorithm: { signature: type.startsWith('ED') ? 'EDDSA' : 'ECDSA', type },
        signature: signature.toString('base64'),
      }),
    ).toString('base64');

  it('labels the algorithms as trustbloc/vct does and refuses other key types', () => {
    expect(signatureAlgorithmOf('Ed25519')).toEqual({ signature: 'EDDSA', type: 'ED25519' });
    expect(signatureAlgorithmOf('P-256')).toEqual({ signature: 'ECDSA', type: 'ECDSAP256IEEEP1363' });
    expect(() => signatureAlgorithmOf('secp256k1')).toThrow(/Ed25519 or P-256/);
    expect(() => signEnvelope(KeyPair.generate('P-384'), payload)).toThrow(/Ed25519 or P-256/);
  });

  it('signs with P-256 in the ECDSAP256IEEEP1363 envelope: r || s, verifiable with the 65-byte point', () => {
    const key = KeyPair.generate('P-256');
    const envelope = signEnvelope(key, payload);
    const parsed = JSON.parse(Buffer.from(envelope, 'base64').toString()) as { algorithm: unknown; signature: string };
    expect(Object.keys(parsed)).toEqual(['algorithm', 'signature']);
    expect(parsed.algorithm).toEqual({ signature: 'ECDSA', type: 'ECDSAP256IEEEP1363' });
    expect(Buffer.from(parsed.signature, 'base64')).toHaveLength(64);
    expect(key.publicKeyBytes()).toHaveLength(65);
    expect(verifyEnvelope(envelope, payload, key.publicKeyBytes())).toBe(true);
  });

  it('verifies the DER forms a cloud KMS produces (SPKI key, DER signature)', () => {
    for (const [curve, hash, type] of [
      ['prime256v1', 'sha256', 'ECDSAP256DER'],
      ['secp384r1', 'sha384', 'ECDSAP384DER'],
    ] as const) {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
      const spki = publicKey.export({ format: 'der', type: 'spki' });
      const signature = sign(hash, payload, { key: privateKey, dsaEncoding: 'der' });
      expect(envelopeProblem(envelopeOf(type, signature), payload, spki)).toBeUndefined();
      expect(envelopeProblem(envelopeOf(type, signature), vcTimestampSignaturePayload(6, 'QQ=='), spki)).toMatch(
        /does not verify/,
      );
    }
  });

  it('names what is wrong: another payload, another key, a malformed envelope, an unknown type', () => {
    const envelope = signEnvelope(V3_KEY, payload);
    const other = KeyPair.generate('Ed25519');
    expect(envelopeProblem(envelope, payload, V3_KEY.publicKeyBytes())).toBeUndefined();
    expect(envelopeProblem(envelope, vcTimestampSignaturePayload(6, 'QQ=='), V3_KEY.publicKeyBytes())).toMatch(
      /Ed25519 log signature does not verify/,
    );
    expect(envelopeProblem(envelope, payload, other.publicKeyBytes())).toMatch(/does not verify/);
    expect(envelopeProblem('not base64!', payload, V3_KEY.publicKeyBytes())).toMatch(/not base64 of a JSON envelope/);
    expect(envelopeProblem(Buffer.from('null').toString('base64'), payload, V3_KEY.publicKeyBytes())).toMatch(
      /not base64 of a JSON envelope/,
    );
    expect(
      envelopeProblem(
        Buffer.from('{"algorithm":{"type":"ED25519"}}').toString('base64'),
        payload,
        V3_KEY.publicKeyBytes(),
      ),
    ).toMatch(/no signature/);
    expect(envelopeProblem(envelopeOf('RSA', V3_KEY.sign(payload)), payload, V3_KEY.publicKeyBytes())).toMatch(
      /unsupported log signature key type "RSA"/,
    );
    expect(
      envelopeProblem(envelopeOf('ECDSAP256IEEEP1363', V3_KEY.sign(payload)), payload, V3_KEY.publicKeyBytes()),
    ).toMatch(/cannot verify|does not verify/);
    expect(
      verifyEnvelope(
        Buffer.from('{"algorithm":{"signature":"ECDSA","type":"ED25519"},"signature":""}').toString('base64'),
        payload,
        V3_KEY.publicKeyBytes(),
      ),
    ).toBe(false);
  });
});
