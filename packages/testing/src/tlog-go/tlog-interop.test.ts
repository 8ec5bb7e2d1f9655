import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MerkleTree, leafHash } from '@anchor/common/merkle';
import {
  cosignCheckpoint,
  cosignatureKeyHash,
  cosignatureVerifierKey,
  ed25519NoteSign,
  ed25519VerifierKey,
  formatCheckpoint,
  hashTile,
  noteKeyHash,
  openNote,
  parseCosignatureLines,
  parseCosignatureVerifierKey,
  parseNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  tilePath,
  tileWidth,
  type TileRef,
} from '@anchor/common/tlog';
import { askTlogGo, ensureTlogGoClient } from './index.js';

interface GoAnswer {
  openedText: string;
  openedBy: string[];
  signed: string;
  root: string;
  tilePaths: string[];
  tileData: string[];
}

interface GoCosignedAnswer {
  openedBy: string[];
  timestamps: number[];
  unverified: string[] | null;
  cosigned: string;
}

/** Go's tlog paths name the tile height (8) and call entry bundles `data`; C2SP's do neither. */
const c2spPathOf = (goPath: string): string =>
  goPath.replace(/^tile\/8\//, 'tile/').replace(/^tile\/data\//, 'tile/entries/');

/**
 * golang.org/x/mod's sumdb/note and sumdb/tlog (test/tlog-go, built from the Go module proxy and cached by
 * scripts/ensure-tlog-go-client.sh) against this module: Go opens a checkpoint note this module signs, this
 * module opens one Go signs, and both agree on the tree's root, the tiles' paths and the hash tiles' bytes.
 * transparency-dev/formats' note package checks the cosignatures (cosignature/v1) both ways.
 */
describe('C2SP formats against Go (golang.org/x/mod sumdb/note, sumdb/tlog)', () => {
  let binary: string;
  beforeAll(async () => {
    binary = await ensureTlogGoClient();
  }, 300_000);

  it('Go opens our signed checkpoint, we open Go’s; roots, tile paths and hash tiles agree', async () => {
    const entries = Array.from({ length: 70_000 }, (_, i) => Buffer.from(`entry ${i}`));
    const tree = MerkleTree.fromLeafHashes(entries.map((entry) => leafHash(entry)));
    const origin = 'vct.example.com/maple2026';
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const keyHash = noteKeyHash(origin, raw);
    const checkpoint = formatCheckpoint({ origin, size: tree.size, rootHash: tree.root() });
    const note = await signNote(checkpoint, [{ name: origin, keyHash, sign: ed25519NoteSign(privateKey) }]);
    const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(16);
    const signerKey = `PRIVATE+KEY+${origin}+${keyHash.toString(16).padStart(8, '0')}+${Buffer.concat([Buffer.from([1]), seed]).toString('base64')}`;
    const tiles: TileRef[] = [
      { level: 0, index: 0, width: 256 },
      { level: 0, index: 273, width: tileWidth(tree.size, 0, 273) },
      { level: 1, index: 0, width: 256 },
      { level: 1, index: 1, width: tileWidth(tree.size, 1, 1) },
      { level: 2, index: 0, width: tileWidth(tree.size, 2, 0) },
      { level: 0, index: 12, width: 17 },
    ].filter((tile) => tile.width > 0);
    expect(tiles.map((tile) => tile.width)).toEqual([256, 112, 256, 17, 1, 17]);

    const go = await askTlogGo<GoAnswer>(binary, {
      verifierKey: ed25519VerifierKey(origin, raw),
      note,
      signerKey,
      text: checkpoint,
      entries: entries.map((entry) => entry.toString('base64')),
      tiles: tiles.map(({ level, index, width }) => ({ l: level, n: index, w: width })),
    });
    expect(go.openedText).toBe(checkpoint);
    expect(go.openedBy).toEqual([`${origin}+${keyHash.toString(16).padStart(8, '0')}`]);
    // Ed25519 is deterministic: Go's note is ours, byte for byte, and ours opens it.
    expect(go.signed).toBe(note);
    expect(openNote(go.signed, [parseVerifierKey(ed25519VerifierKey(origin, raw))]).text).toBe(checkpoint);
    expect(parseSignerKey(signerKey).verifier.keyHash).toBe(keyHash);
    expect(go.root).toBe(tree.root().toString('base64'));
    expect(go.tilePaths.map(c2spPathOf)).toEqual(tiles.map(tilePath));
    expect(go.tileData).toEqual(tiles.map((tile) => hashTile(tree, tile).toString('base64')));
    expect(c2spPathOf('tile/8/data/x001/234.p/5')).toBe(tilePath({ level: 'entries', index: 1234, width: 5 }));
  }, 120_000);

  it('Go opens our cosigned checkpoint with cosignature/v1 keys, and cosigns it as we verify', async () => {
    const origin = 'vct.example.com/maple2026';
    const key = (): { raw: Buffer; seed: Buffer; privateKey: ReturnType<typeof generateKeyPairSync>['privateKey'] } => {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      return {
        raw: publicKey.export({ format: 'der', type: 'spki' }).subarray(12),
        seed: privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(16),
        privateKey,
      };
    };
    const log = key();
    const witnesses = ['w1.example.org', 'w2.example.net', 'w3.example.com'].map((name) => ({ name, ...key() }));
    const text = formatCheckpoint({ origin, size: 1234, rootHash: Buffer.alloc(32, 7) });
    const note = await signNote(text, [
      { name: origin, keyHash: noteKeyHash(origin, log.raw), sign: ed25519NoteSign(log.privateKey) },
    ]);
    const cosign = (w: (typeof witnesses)[number], time: number): Promise<string> =>
      cosignCheckpoint(
        text,
        { name: w.name, keyHash: cosignatureKeyHash(w.name, w.raw), sign: ed25519NoteSign(w.privateKey) },
        time,
      );
    const lines = (await cosign(witnesses[0]!, 1764730000)) + (await cosign(witnesses[1]!, 1764730001));
    const third = witnesses[2]!;
    const signerKey = `PRIVATE+KEY+${third.name}+${noteKeyHash(third.name, third.raw).toString(16).padStart(8, '0')}+${Buffer.concat([Buffer.from([1]), third.seed]).toString('base64')}`;
    const go = await askTlogGo<GoCosignedAnswer>(binary, {
      cosigned: {
        note: note + lines,
        logVerifierKey: ed25519VerifierKey(origin, log.raw),
        // The first two as vkeys of type 0x04; formats also takes a witness's plain Ed25519 vkey.
        witnessKeys: [
          cosignatureVerifierKey(witnesses[0]!.name, witnesses[0]!.raw),
          ed25519VerifierKey(witnesses[1]!.name, witnesses[1]!.raw),
        ],
        signerKey,
      },
    });
    const hex = (n: number): string => n.toString(16).padStart(8, '0');
    expect(go.openedBy).toEqual([
      `${origin}+${hex(noteKeyHash(origin, log.raw))}`,
      ...witnesses.slice(0, 2).map((w) => `${w.name}+${hex(cosignatureKeyHash(w.name, w.raw))}`),
    ]);
    expect(go.timestamps).toEqual([0, 1764730000, 1764730001]);
    // Go's cosignature/v1 by the third witness (stamped with Go's clock): ours verifies it.
    const third3 = parseCosignatureVerifierKey(cosignatureVerifierKey(third.name, third.raw));
    const goLines = go.cosigned.slice(text.length + 1);
    const [verified] = parseCosignatureLines(text, goLines, [third3]);
    expect(verified?.name).toBe(third.name);
    expect(verified?.timestamp).toBeGreaterThan(1_700_000_000);
    expect(parseNote(go.cosigned).text).toBe(text);
  }, 120_000);
});
