import { readdirSync, readFileSync } from 'node:fs';
import * as digitalbazaar from '@digitalbazaar/bbs-signatures';
import { describe, expect, it } from 'vitest';
import { keyGen, proofGen, proofVerify, sign, skToPk, verify } from './bbs-core.js';
import { API_ID, G1, KEYGEN_DST, P1, createGenerators, hashToScalar, messagesToScalars, os2ip } from './ciphersuite.js';

// The draft's own fixtures (vectors/README.md): every value below is checked byte for byte.
const VECTORS = new URL('./vectors/bls12-381-sha-256/', import.meta.url);
const json = <T>(path: string): T => JSON.parse(readFileSync(new URL(path, VECTORS), 'utf8')) as T;
const hex = (value: string): Uint8Array => Uint8Array.from(Buffer.from(value, 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const ascii = (text: string): string => Buffer.from(text).toString('hex');

interface SignatureFixture {
  caseName: string;
  signerKeyPair: { secretKey: string; publicKey: string };
  header: string;
  messages: string[];
  signature: string;
  result: { valid: boolean };
}

interface ProofFixture {
  caseName: string;
  signerPublicKey: string;
  signature: string;
  header: string;
  presentationHeader: string;
  messages: string[];
  disclosedIndexes: number[];
  proof: string;
  result: { valid: boolean };
  trace: {
    random_scalars: {
      r1: string;
      r2: string;
      e_tilde: string;
      r1_tilde: string;
      r3_tilde: string;
      m_tilde_scalars: string[];
    };
  };
}

const fixtures = <T>(folder: string): Array<[string, T]> =>
  readdirSync(new URL(folder, VECTORS))
    .sort()
    .map((file) => [file, json<T>(`${folder}/${file}`)]);

describe('BBS BLS12-381-SHA-256 against the draft fixtures', () => {
  it('derives P1, Q_1 and the message generators', () => {
    const expected = json<{ P1: string; Q1: string; MsgGenerators: string[] }>('generators.json');
    expect(toHex(P1.toBytes(true))).toBe(expected.P1);
    const generators = createGenerators(expected.MsgGenerators.length + 1).map((point) => toHex(point.toBytes(true)));
    expect(generators).toEqual([expected.Q1, ...expected.MsgGenerators]);
    // The cache hands out the same prefix for a shorter count.
    expect(createGenerators(3).map((point) => toHex(point.toBytes(true)))).toEqual(generators.slice(0, 3));
  });

  it('hashes to scalars and maps messages to scalars', () => {
    const h2s = json<{ message: string; dst: string; scalar: string }>('h2s.json');
    expect(h2s.dst).toBe(toHex(API_ID) + ascii('H2S_'));
    expect(hashToScalar(hex(h2s.message), hex(h2s.dst)).toString(16).padStart(64, '0')).toBe(h2s.scalar);
    const map = json<{ dst: string; cases: Array<{ message: string; scalar: string }> }>(
      'MapMessageToScalarAsHash.json',
    );
    expect(map.dst).toBe(toHex(API_ID) + ascii('MAP_MSG_TO_SCALAR_AS_HASH_'));
    const scalars = messagesToScalars(map.cases.map(({ message }) => hex(message)));
    expect(scalars.map((scalar) => scalar.toString(16).padStart(64, '0'))).toEqual(
      map.cases.map(({ scalar }) => scalar),
    );
  });

  it('generates the key pair from key material and key info', () => {
    const fixture = json<{
      keyMaterial: string;
      keyInfo: string;
      keyDst: string;
      keyPair: { secretKey: string; publicKey: string };
    }>('keypair.json');
    // The fixture passes key_dst = api_id || "KEYGEN_DST_"; KeyGen's default is ciphersuite_id || "KEYGEN_DST_".
    expect(fixture.keyDst).toBe(toHex(API_ID) + ascii('KEYGEN_DST_'));
    expect(toHex(KEYGEN_DST)).toBe(ascii('BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_KEYGEN_DST_'));
    const sk = keyGen(hex(fixture.keyMaterial), hex(fixture.keyInfo), hex(fixture.keyDst));
    expect(sk.toString(16).padStart(64, '0')).toBe(fixture.keyPair.secretKey);
    expect(toHex(skToPk(sk))).toBe(fixture.keyPair.publicKey);
  });

  for (const [file, fixture] of fixtures<SignatureFixture>('signature')) {
    it(`${file}: ${fixture.caseName}`, () => {
      const pk = hex(fixture.signerKeyPair.publicKey);
      const messages = fixture.messages.map(hex);
      expect(verify(pk, hex(fixture.signature), hex(fixture.header), messages)).toBe(fixture.result.valid);
      if (fixture.result.valid) {
        const sk = os2ip(hex(fixture.signerKeyPair.secretKey));
        expect(toHex(sign(sk, pk, hex(fixture.header), messages))).toBe(fixture.signature);
      }
    });
  }

  for (const [file, fixture] of fixtures<ProofFixture>('proof')) {
    it(`${file}: ${fixture.caseName}`, () => {
      const pk = hex(fixture.signerPublicKey);
      const messages = fixture.messages.map(hex);
      const disclosed = fixture.disclosedIndexes.map((index) => [index, messages[index] ?? new Uint8Array()] as const);
      expect(proofVerify(pk, hex(fixture.proof), hex(fixture.header), hex(fixture.presentationHeader), disclosed)).toBe(
        fixture.result.valid,
      );
      if (fixture.result.valid) {
        const { r1, r2, e_tilde, r1_tilde, r3_tilde, m_tilde_scalars } = fixture.trace.random_scalars;
        const scalars = [r1, r2, e_tilde, r1_tilde, r3_tilde, ...m_tilde_scalars].map((value) => BigInt(`0x${value}`));
        const proof = proofGen(
          pk,
          hex(fixture.signature),
          hex(fixture.header),
          hex(fixture.presentationHeader),
          messages,
          fixture.disclosedIndexes,
          (count) => {
            expect(count).toBe(scalars.length);
            return scalars;
          },
        );
        expect(toHex(proof)).toBe(fixture.proof);
      }
    });
  }
});

describe('BBS against an independent implementation (@digitalbazaar/bbs-signatures)', () => {
  const ciphersuite = 'BLS12-381-SHA-256' as const;
  const messages = Array.from({ length: 5 }, (_, i) => new TextEncoder().encode(`claim ${i}`));
  const header = new TextEncoder().encode('issuer context');
  const ph = new TextEncoder().encode('verifier nonce');
  const sk = keyGen(new Uint8Array(32).fill(7));
  const pk = skToPk(sk);
  const secretKey = hex(sk.toString(16).padStart(64, '0'));

  it('derives the same public key and the same (deterministic) signature', async () => {
    expect(toHex(await digitalbazaar.secretKeyToPublicKey({ secretKey, ciphersuite }))).toBe(toHex(pk));
    const theirs = await digitalbazaar.sign({ secretKey, publicKey: pk, header, messages, ciphersuite });
    expect(toHex(sign(sk, pk, header, messages))).toBe(toHex(theirs));
  });

  it('each verifies the proofs the other derives', async () => {
    const signature = sign(sk, pk, header, messages);
    const disclosedMessageIndexes = [1, 3];
    const ours = proofGen(pk, signature, header, ph, messages, disclosedMessageIndexes);
    const disclosedMessages = disclosedMessageIndexes.map((i) => messages[i]!);
    expect(
      await digitalbazaar.verifyProof({
        publicKey: pk,
        proof: ours,
        header,
        presentationHeader: ph,
        disclosedMessages,
        disclosedMessageIndexes,
        ciphersuite,
      }),
    ).toBe(true);
    const theirs = await digitalbazaar.deriveProof({
      publicKey: pk,
      signature,
      header,
      messages,
      presentationHeader: ph,
      disclosedMessageIndexes,
      ciphersuite,
    });
    expect(
      proofVerify(
        pk,
        theirs,
        header,
        ph,
        disclosedMessageIndexes.map((i) => [i, messages[i]!] as const),
      ),
    ).toBe(true);
    // Unlinkable: two proofs of the same signature differ.
    expect(toHex(proofGen(pk, signature, header, ph, messages, disclosedMessageIndexes))).not.toBe(toHex(ours));
  });

  it('refuses a proof under another presentation header, and points off the subgroup', () => {
    const signature = sign(sk, pk, header, messages);
    const proof = proofGen(pk, signature, header, ph, messages, [0]);
    expect(proofVerify(pk, proof, header, new Uint8Array(), [[0, messages[0]!]])).toBe(false);
    expect(verify(pk, signature, header, messages.slice(1))).toBe(false);
    const identity = G1.ZERO.toBytes(true);
    expect(verify(pk, Uint8Array.from([...identity, ...signature.subarray(48)]), header, messages)).toBe(false);
  });
});
