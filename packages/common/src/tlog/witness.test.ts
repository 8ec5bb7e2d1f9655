import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { EMPTY_TREE_ROOT, MerkleTree, leafHash } from '../merkle/index.js';
import {
  type Cosigner,
  type NoteVerifier,
  type WitnessedCheckpoint,
  checkAddCheckpoint,
  cosignCheckpoint,
  cosignatureKeyHash,
  cosignatureMessage,
  cosignatureTimestamp,
  cosignatureVerifierKey,
  ed25519NoteSign,
  formatAddCheckpoint,
  formatCheckpoint,
  formatTreeSize,
  noteKeyHash,
  parseAddCheckpoint,
  parseCosignatureLines,
  parseCosignatureVerifierKey,
  parseNote,
  parseSignerKey,
  parseTreeSize,
  signNote,
  verifyCosignatures,
} from './index.js';

const vector = (name: string): string => readFileSync(new URL(`./vectors/${name}`, import.meta.url), 'utf8');

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('not refused');
};

/** The key of golang.org/x/mod/sumdb/note's documentation example (as tlog.test.ts). */
const GO_SIGNER = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
/** The checkpoint of the C2SP tlog-cosignature example (vectors/cosigned-checkpoint.txt). */
const SOFA = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
/**
 * PeterNeumann's seed as a cosignature/v1 key cosigning SOFA at the spec's example time: Go's
 * transparency-dev/formats note.NewVerifierForCosignatureV1 verifies this line (packages/testing/src/tlog-go/tlog-interop.test.ts checks a
 * fresh one of the same making on every run).
 */
const PETER_COSIGNATURE =
  '— PeterNeumann GLl4CwAAAABkGFDLJeR//pqzhnEKVvEm2wWbh2RJ6oru5+cUUfm5X9NnlaGr8aSH9QE5RVZD4QGlxl2F5UpVIIi94p178KLfqPPsAA==\n';

interface Key {
  raw: Buffer;
  privateKey: KeyObject;
}
const newKey = (): Key => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { raw: Buffer.from(publicKey.export({ format: 'der', type: 'spki' }).subarray(12)), privateKey };
};
const logVerifier = (name: string, key: Key): NoteVerifier => ({
  name,
  keyHash: noteKeyHash(name, key.raw),
  publicKey: key.raw,
});
const cosigner = (name: string, key: Key): Cosigner =>
  parseCosignatureVerifierKey(cosignatureVerifierKey(name, key.raw));
const cosign = (text: string, name: string, key: Key, time: number): Promise<string> =>
  cosignCheckpoint(
    text,
    { name, keyHash: cosignatureKeyHash(name, key.raw), sign: ed25519NoteSign(key.privateKey) },
    time,
  );

describe('C2SP tlog-cosignature (cosignature/v1)', () => {
  it('reads the spec example: the log signature is Ed25519 (68 bytes), the cosignature carries its time', () => {
    const { text, signatures } = parseNote(vector('cosigned-checkpoint.txt'));
    expect(text).toBe(SOFA);
    expect(signatures.map((s) => [s.name, s.bytes.length])).toEqual([
      ['example.com/behind-the-sofa', 68],
      ['witness.example.com/w1', 76],
    ]);
    // The spec's message example has `time 1679315147`, the time in the example cosignature's bytes.
    expect(cosignatureTimestamp(signatures[1]!)).toBe(1679315147);
    expect(cosignatureMessage(text, 1679315147).toString()).toBe(`cosignature/v1\ntime 1679315147\n${SOFA}`);
    expect(refusal(() => cosignatureTimestamp(signatures[0]!)).message).toMatch(/not 64 bytes/);
  });

  it('signs the spec message with a type-0x04 key hash: a fixed key and time give the line Go verifies', async () => {
    const { privateKey, verifier } = parseSignerKey(GO_SIGNER);
    const keyHash = cosignatureKeyHash('PeterNeumann', verifier.publicKey);
    expect(keyHash).not.toBe(verifier.keyHash);
    expect(keyHash).toBe(noteKeyHash('PeterNeumann', verifier.publicKey, 0x04));
    const line = await cosignCheckpoint(
      SOFA,
      { name: 'PeterNeumann', keyHash, sign: ed25519NoteSign(privateKey) },
      1679315147,
    );
    expect(line).toBe(PETER_COSIGNATURE);
    const known = parseCosignatureVerifierKey(cosignatureVerifierKey('PeterNeumann', verifier.publicKey));
    expect(parseCosignatureLines(SOFA, line, [known])).toEqual([
      { name: 'PeterNeumann', keyHash, timestamp: 1679315147, line },
    ]);
  });

  it('verifies known cosigners only, each once; a bad cosignature by a known key is refused', async () => {
    const [w1, w2, w3] = [newKey(), newKey(), newKey()];
    const lines =
      (await cosign(SOFA, 'w1.example', w1!, 1700000000)) + (await cosign(SOFA, 'w2.example', w2!, 1700000001));
    const known = [cosigner('w1.example', w1!), cosigner('w3.example', w3!)];
    const found = parseCosignatureLines(SOFA, lines + lines.split('\n')[0] + '\n', known);
    expect(found.map((c) => [c.name, c.timestamp])).toEqual([['w1.example', 1700000000]]);
    // Another checkpoint, another time or another key: the cosignature does not verify.
    const other = SOFA.replace('20852163', '20852164');
    expect(refusal(() => parseCosignatureLines(other, lines, known)).message).toMatch(
      /invalid cosignature for key w1\.example\+/,
    );
    const moved = Buffer.from(lines.split(' ')[2]!.split('\n')[0]!, 'base64');
    moved.writeBigUInt64BE(1700000005n, 4);
    const retimed = `— w1.example ${moved.toString('base64')}\n`;
    expect(refusal(() => parseCosignatureLines(SOFA, retimed, known)).message).toMatch(/invalid cosignature/);
    // The log's own Ed25519 key under the witness name has another key hash: not taken for a cosignature.
    const asNote = await signNote(SOFA, [{ ...logVerifier('w1.example', w1!), sign: ed25519NoteSign(w1!.privateKey) }]);
    expect(verifyCosignatures(SOFA, parseNote(asNote).signatures, known)).toEqual([]);
  });

  it('refuses malformed keys, lines and times', async () => {
    const key = newKey();
    const vkey = cosignatureVerifierKey('w.example', key.raw);
    expect(vkey).toMatch(/^w\.example\+[0-9a-f]{8}\+B/);
    expect(refusal(() => parseCosignatureVerifierKey(vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).message).toMatch(
      /does not match/,
    );
    const ed25519Vkey = `w.example+${noteKeyHash('w.example', key.raw).toString(16).padStart(8, '0')}+${Buffer.concat([Buffer.from([1]), key.raw]).toString('base64')}`;
    expect(refusal(() => parseCosignatureVerifierKey(ed25519Vkey)).message).toMatch(/type 0x04/);
    expect(refusal(() => parseCosignatureVerifierKey('w example+00000000+BA==')).message).toMatch(
      /not a cosignature verifier key/,
    );
    expect(refusal(() => parseCosignatureLines(SOFA, '', [])).message).toMatch(/at least one/);
    expect(refusal(() => parseCosignatureLines(SOFA, '- w.example AAAA\n', [])).message).toMatch(
      /malformed signed note/,
    );
    const short = `— w.example ${Buffer.concat([Buffer.alloc(4), Buffer.alloc(64)]).toString('base64')}\n`;
    const known = cosigner('w.example', key);
    const shortOfKnown = short.replace(
      Buffer.alloc(4).toString('base64').slice(0, 4),
      Buffer.from([0, 0, 0, 0]).toString('base64').slice(0, 4),
    );
    const bytes = Buffer.from(shortOfKnown.split(' ')[2]!.trim(), 'base64');
    bytes.writeUInt32BE(known.keyHash, 0);
    expect(
      refusal(() => parseCosignatureLines(SOFA, `— w.example ${bytes.toString('base64')}\n`, [known])).message,
    ).toMatch(/8 bytes of time and 64 of signature/);
    await expect(cosign(SOFA, 'w.example', key, 0)).rejects.toThrow(/not zero/);
    await expect(cosign(SOFA, 'w.example', key, -1)).rejects.toThrow(/count of seconds/);
    await expect(cosign('one line\n', 'w.example', key, 1)).rejects.toThrow(/three/);
  });
});

describe('C2SP tlog-witness add-checkpoint', () => {
  it('reads the spec example request and its response lines', () => {
    const body = vector('add-checkpoint-request.txt');
    const request = parseAddCheckpoint(body);
    expect(request.oldSize).toBe(20852014);
    expect(request.proof.map((hash) => hash.toString('base64'))).toEqual([
      'PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=',
      'jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=',
      '5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=',
      '/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=',
    ]);
    expect(parseNote(request.note).text).toBe(SOFA);
    expect(formatAddCheckpoint(request)).toBe(body);
    // Lines of keys not known are ignored; the example's three are 76 bytes each (cosignature/v1).
    const response = vector('add-checkpoint-response.txt');
    expect(parseCosignatureLines(SOFA, response, [])).toEqual([]);
    expect(parseNote(`${SOFA}\n${response}`).signatures.map((s) => [s.name, s.bytes.length])).toEqual([
      ['witness.example/w1', 76],
      ['witness.example/w1', 76],
      ['witness.example/w2', 76],
    ]);
  });

  it('refuses malformed bodies and sizes', () => {
    const note = 'o\n1\nAAAA\n\n— o AAAAAAAA\n';
    const hash = Buffer.alloc(32).toString('base64');
    for (const [body, why] of [
      [`old 1\n${hash}\n`, /blank line/],
      [`old 01\n\n${note}`, /"old <size>"/],
      [`old -1\n\n${note}`, /"old <size>"/],
      [`new 1\n\n${note}`, /"old <size>"/],
      [`old 1\nAAAA\n\n${note}`, /32-byte hash/],
      [`old 1\n${hash.replace('=', '')}\n\n${note}`, /32-byte hash/],
      [`old 1\n${`${hash}\n`.repeat(64)}\n${note}`, /at most 63/],
    ] as const)
      expect(refusal(() => parseAddCheckpoint(body)).message).toMatch(why);
    expect(parseAddCheckpoint(`old 0\n\n${note}`)).toEqual({ oldSize: 0, proof: [], note });
    expect(formatTreeSize(42)).toBe('42\n');
    expect(parseTreeSize('42\n')).toBe(42);
    for (const body of ['42', '042\n', '-1\n', '', '4 2\n'])
      expect(refusal(() => parseTreeSize(body)).code).toBe('bad_request');
    expect(() => formatAddCheckpoint({ oldSize: -1, proof: [], note })).toThrow(/count/);
  });
});

describe('the witness checks of add-checkpoint', () => {
  const origin = 'log.example/main';
  const logKey = newKey();
  const keys = [logVerifier(origin, logKey)];
  const tree = MerkleTree.fromLeafHashes(Array.from({ length: 20 }, (_, i) => leafHash(Buffer.from(`e${i}`))));
  const checkpointNote = (size: number, root = tree.root(size), key = logKey): Promise<string> =>
    signNote(formatCheckpoint({ origin, size, rootHash: root }), [
      { name: origin, keyHash: noteKeyHash(origin, key.raw), sign: ed25519NoteSign(key.privateKey) },
    ]);
  const check = (note: string, oldSize: number, proof: Buffer[], held?: WitnessedCheckpoint) =>
    checkAddCheckpoint(
      { oldSize, proof, note },
      (o) => (o === origin ? keys : undefined),
      () => held,
    );

  it('accepts a first checkpoint from 0 and a consistent one from the size held', async () => {
    const first = check(await checkpointNote(7), 0, []);
    expect(first).toMatchObject({ accept: true, checkpoint: { origin, size: 7 } });
    const held = { size: 7, rootHash: tree.root(7) };
    expect(check(await checkpointNote(20), 7, tree.consistencyProof(7, 20), held)).toMatchObject({
      accept: true,
      checkpoint: { size: 20 },
    });
    expect(check(await checkpointNote(7), 7, [], held)).toMatchObject({ accept: true });
    expect(check(await checkpointNote(0, EMPTY_TREE_ROOT), 0, [])).toMatchObject({ accept: true });
  });

  it('answers the size it holds when the old size is not it (409)', async () => {
    const held = { size: 7, rootHash: tree.root(7) };
    expect(check(await checkpointNote(20), 0, [], held)).toEqual({ accept: false, heldSize: 7 });
    expect(check(await checkpointNote(20), 9, tree.consistencyProof(9, 20), held)).toEqual({
      accept: false,
      heldSize: 7,
    });
    expect(check(await checkpointNote(20), 5, [])).toEqual({ accept: false, heldSize: 0 });
  });

  it('refuses by the spec: 404 origin, 403 signature, 400 old size past, 422 proof and split view', async () => {
    const held = { size: 7, rootHash: tree.root(7) };
    const other = await signNote(formatCheckpoint({ origin: 'other.example/x', size: 1, rootHash: tree.root(1) }), [
      {
        name: 'other.example/x',
        keyHash: noteKeyHash('other.example/x', logKey.raw),
        sign: ed25519NoteSign(logKey.privateKey),
      },
    ]);
    expect(refusal(() => check(other, 0, [])).status).toBe(404);
    const byStranger = await checkpointNote(7, tree.root(7), newKey());
    expect(refusal(() => check(byStranger, 0, [])).message).toBe(`no signature by a key trusted for ${origin}`);
    const good = await checkpointNote(7);
    // The same signature line on another root: the trusted key's signature does not verify.
    const forged = good.replace(tree.root(7).toString('base64'), tree.root(6).toString('base64'));
    expect(refusal(() => check(forged, 0, [])).message).toMatch(/^the signature of log key .* does not verify$/);
    expect(refusal(() => check(forged, 0, [])).status).toBe(403);
    expect(refusal(() => check(good, 8, [])).status).toBe(400);
    expect(refusal(() => check('not a note', 0, [])).status).toBe(400);
    const twenty = await checkpointNote(20);
    expect(refusal(() => check(twenty, 7, tree.consistencyProof(6, 20), held)).status).toBe(422);
    expect(refusal(() => check(twenty, 7, [], held)).status).toBe(422);
    expect(refusal(() => check(good, 0, tree.consistencyProof(3, 7))).status).toBe(422);
    const badEmpty = await checkpointNote(0, tree.root(1));
    expect(refusal(() => check(badEmpty, 0, [])).status).toBe(422);
    // Two checkpoints of one size with different roots: the second is a split view.
    const splitNote = await checkpointNote(7, tree.root(6));
    const split = refusal(() => check(splitNote, 7, [], held));
    expect([split.status, split.message]).toEqual([
      422,
      "the checkpoint's root differs from the one held at size 7: a split view",
    ]);
  });
});
