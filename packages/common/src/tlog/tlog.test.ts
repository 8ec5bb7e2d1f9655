import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { MerkleTree } from '../merkle/index.js';
import {
  TILE_WIDTH,
  decodeEntryBundle,
  ed25519NoteSign,
  ed25519VerifierKey,
  encodeEntryBundle,
  formatCheckpoint,
  hashTile,
  noteKeyHash,
  openNote,
  parseCheckpoint,
  parseSignerKey,
  parseTilePath,
  parseVerifierKey,
  signNote,
  tilePath,
  tileWidth,
} from './index.js';

const refused = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error('not refused');
};

/** The example of golang.org/x/mod/sumdb/note's documentation: its keys and its signed note. */
const GO_SIGNER = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const GO_VERIFIER = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe('signed notes', () => {
  it("reads Go's keys and opens Go's note; signs the same note byte for byte (Ed25519 is deterministic)", async () => {
    const verifier = parseVerifierKey(GO_VERIFIER);
    expect(verifier).toMatchObject({ name: 'PeterNeumann', keyHash: 0xc74f20a3 });
    expect(ed25519VerifierKey('PeterNeumann', verifier.publicKey)).toBe(GO_VERIFIER);
    expect(openNote(GO_NOTE, [verifier])).toEqual({
      text: GO_TEXT,
      verified: [{ name: 'PeterNeumann', keyHash: 0xc74f20a3, base64: GO_NOTE.split(' ').at(-1)!.trim() }],
      unverified: [],
    });
    const signer = parseSignerKey(GO_SIGNER);
    expect(signer.verifier).toEqual(verifier);
    const signed = await signNote(GO_TEXT, [{ ...signer.verifier, sign: ed25519NoteSign(signer.privateKey) }]);
    expect(signed).toBe(GO_NOTE);
  });

  it('keeps signatures by unknown keys unverified, and refuses a note no known key signed', async () => {
    const other = generateKeyPairSync('ed25519');
    const raw = other.publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const mine = { name: 'log.example/1', keyHash: noteKeyHash('log.example/1', raw), publicKey: Buffer.from(raw) };
    const both = await signNote(GO_TEXT, [{ ...mine, sign: ed25519NoteSign(other.privateKey) }]);
    const twice = `${GO_NOTE}${both.slice(GO_TEXT.length + 1)}`;
    const opened = openNote(twice, [parseVerifierKey(GO_VERIFIER)]);
    expect(opened.verified.map((s) => s.name)).toEqual(['PeterNeumann']);
    expect(opened.unverified.map((s) => s.name)).toEqual(['log.example/1']);
    expect(openNote(twice, [mine]).verified.map((s) => s.name)).toEqual(['log.example/1']);
    expect(refused(() => openNote(both, [parseVerifierKey(GO_VERIFIER)]))).toBe(
      'the note has no signature by a known key',
    );
  });

  it('refuses a tampered text or signature, malformed notes and keys', () => {
    const verifier = parseVerifierKey(GO_VERIFIER);
    expect(refused(() => openNote(GO_NOTE.replace('problem,', 'problem;'), [verifier]))).toMatch(
      /invalid note signature/,
    );
    expect(refused(() => openNote(GO_NOTE.replace('x08go', 'x08gp'), [verifier]))).toMatch(/signature/);
    expect(refused(() => openNote(GO_TEXT, [verifier]))).toMatch(/malformed signed note: no blank line/);
    expect(refused(() => openNote(`${GO_TEXT}\n`, [verifier]))).toMatch(/no signature lines/);
    expect(refused(() => openNote(GO_NOTE.replace('— ', '- '), [verifier]))).toMatch(/no signature/);
    expect(refused(() => openNote(GO_NOTE.replace('If', 'If\t'), [verifier]))).toMatch(/control character/);
    expect(refused(() => openNote(GO_NOTE.slice(0, -1), [verifier]))).toMatch(/malformed/);
    expect(refused(() => openNote(GO_NOTE.replace('If', 'If\ud800'), [verifier]))).toMatch(/control character/);
    expect(refused(() => parseVerifierKey(GO_VERIFIER.replace('c74f20a3', 'c74f20a4')))).toMatch(/does not match/);
    expect(refused(() => parseVerifierKey('Peter Neumann+c74f20a3+AA=='))).toMatch(/not a note verifier key/);
    expect(refused(() => parseVerifierKey('PeterNeumann+c74f20a3+AhI0'))).toMatch(/Ed25519/);
    expect(refused(() => ed25519VerifierKey('a+b', Buffer.alloc(32)))).toMatch(/valid note key name/);
  });

  it('signs only texts ending in a newline, with signers of valid names', async () => {
    const signer = parseSignerKey(GO_SIGNER);
    const one = [{ ...signer.verifier, sign: ed25519NoteSign(signer.privateKey) }];
    await expect(signNote('no newline', one)).rejects.toThrow('a note text must end with a newline');
    await expect(signNote('a\u0007\n', one)).rejects.toThrow(/control characters/);
    await expect(signNote('a\n', [])).rejects.toThrow('a signed note needs a signature');
    await expect(signNote('a\n', [{ ...one[0]!, name: 'a b' }])).rejects.toThrow(/valid note key name/);
  });
});

describe('checkpoints', () => {
  const root = MerkleTree.fromLeafHashes([Buffer.alloc(32, 1), Buffer.alloc(32, 2)]).root();

  it('writes and reads origin, size, root and extension lines', () => {
    const text = formatCheckpoint({ origin: 'example.com/log/main', size: 2, rootHash: root });
    expect(text).toBe(`example.com/log/main\n2\n${root.toString('base64')}\n`);
    expect(parseCheckpoint(text)).toEqual({ origin: 'example.com/log/main', size: 2, rootHash: root, extensions: [] });
    const extended = formatCheckpoint({ origin: 'o', size: 0, rootHash: root, extensions: ['x: 1'] });
    expect(parseCheckpoint(extended).extensions).toEqual(['x: 1']);
  });

  it('refuses what is no checkpoint', () => {
    const b64 = root.toString('base64');
    for (const [text, message] of [
      [`o\n2\n${b64}`, /ends with a newline/],
      [`\n2\n${b64}\n`, /origin line/],
      [`o\n02\n${b64}\n`, /not a decimal count/],
      [`o\n-1\n${b64}\n`, /not a decimal count/],
      [`o\n2\n${b64.slice(4)}\n`, /not the base64 of 32 bytes/],
      [`o\n2\n${b64}\n\n`, /no empty lines/],
    ] as const)
      expect(
        refused(() => parseCheckpoint(text)),
        text,
      ).toMatch(message);
    expect(refused(() => formatCheckpoint({ origin: 'a\nb', size: 1, rootHash: root }))).toMatch(/origin/);
    expect(refused(() => formatCheckpoint({ origin: 'o', size: 1.5, rootHash: root }))).toMatch(/count/);
    expect(refused(() => formatCheckpoint({ origin: 'o', size: 1, rootHash: root.subarray(1) }))).toMatch(/32 bytes/);
  });
});

describe('tile paths and entry bundles', () => {
  it("writes indexes in x-prefixed groups of three, as C2SP's examples, and reads them back", () => {
    const cases: Array<[Parameters<typeof tilePath>[0], string]> = [
      [{ level: 0, index: 1234067, width: 256 }, 'tile/0/x001/x234/067'],
      [{ level: 0, index: 1234067, width: 8 }, 'tile/0/x001/x234/067.p/8'],
      [{ level: 'entries', index: 1234067, width: 256 }, 'tile/entries/x001/x234/067'],
      [{ level: 3, index: 0, width: 1 }, 'tile/3/000.p/1'],
      [{ level: 1, index: 1000, width: 256 }, 'tile/1/x001/000'],
    ];
    for (const [ref, path] of cases) {
      expect(tilePath(ref)).toBe(path);
      expect(parseTilePath(path)).toEqual(ref);
    }
  });

  it('reads no other spelling', () => {
    for (const path of [
      'tile/0/1234',
      'tile/0/x000/123',
      'tile/64/000',
      'tile/00/000',
      'tile/0/000.p/256',
      'tile/0/000.p/0',
      'tile/0/000.p/08',
      'tile/data/000',
      'tile/0/x1/000',
      '/tile/0/000',
    ])
      expect(parseTilePath(path), path).toBeUndefined();
    expect(refused(() => tilePath({ level: 64, index: 0, width: 1 }))).toMatch(/level/);
    expect(refused(() => tilePath({ level: 0, index: -1, width: 1 }))).toMatch(/index/);
    expect(refused(() => tilePath({ level: 0, index: 0, width: 257 }))).toMatch(/width/);
  });

  it('gives each tile its width in a tree of a size (0: the tree has no such tile yet)', () => {
    const size = 256 * 256 + 256 * 3 + 7; // 66,311 leaves: 259 full level-0 tiles and 7 leaves
    expect([0, 258, 259, 260].map((index) => tileWidth(size, 0, index))).toEqual([256, 256, 7, 0]);
    expect([0, 1, 2].map((index) => tileWidth(size, 1, index))).toEqual([256, 3, 0]);
    expect(tileWidth(size, 2, 0)).toBe(1);
    expect(tileWidth(size, 'entries', 259)).toBe(7);
    expect(tileWidth(0, 0, 0)).toBe(0);
  });

  it('gives a hash tile the nodes at height 8·level, complete ones only', () => {
    const leaves = Array.from({ length: 600 }, (_, i) => Buffer.alloc(32, i % 251));
    const tree = MerkleTree.fromLeafHashes(leaves);
    expect(hashTile(tree, { level: 0, index: 2, width: 88 })).toEqual(Buffer.concat(leaves.slice(512, 600)));
    const level1 = hashTile(tree, { level: 1, index: 0, width: 2 });
    expect(level1.subarray(0, 32)).toEqual(MerkleTree.fromLeafHashes(leaves.slice(0, 256)).root());
    expect(level1.subarray(32)).toEqual(MerkleTree.fromLeafHashes(leaves.slice(256, 512)).root());
    expect(refused(() => hashTile(tree, { level: 0, index: 2, width: 89 }))).toMatch(
      /not complete in a tree of size 600/,
    );
    expect(refused(() => hashTile(tree, { level: 1, index: 0, width: 3 }))).toMatch(/not complete/);
    expect(refused(() => hashTile(tree, { level: 'entries', index: 0, width: 1 }))).toMatch(/entries, not hashes/);
  });

  it('bundles entries with 16-bit big-endian lengths and reads them back', () => {
    const entries = [Buffer.from('a'), Buffer.alloc(0), Buffer.alloc(300, 7)];
    const bundle = encodeEntryBundle(entries);
    expect(bundle.subarray(0, 3)).toEqual(Buffer.from([0, 1, 0x61]));
    expect(bundle.readUInt16BE(5)).toBe(300);
    expect(decodeEntryBundle(bundle)).toEqual(entries);
    expect(refused(() => decodeEntryBundle(bundle.subarray(0, bundle.length - 1)))).toMatch(/inside an entry/);
    expect(refused(() => decodeEntryBundle(Buffer.from([0])))).toMatch(/inside a length/);
    expect(refused(() => encodeEntryBundle([Buffer.alloc(65_536)]))).toMatch(/65,535/);
    expect(refused(() => encodeEntryBundle(Array.from({ length: TILE_WIDTH + 1 }, () => Buffer.alloc(1))))).toMatch(
      /1 to 256/,
    );
  });
});
