import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { leafHash } from '@anchor/common/merkle';
import {
  ed25519VerifierKey,
  openNote,
  parseCheckpoint,
  parseCosignatureVerifierKey,
  parseVerifierKey,
  verifyCosignatures,
} from '@anchor/common/tlog';
import { freePort, makeTempDir, waitFor, type TempDir } from '@anchor/testing/process';
import { askTlogGo, ensureTlogGoClient } from '@anchor/testing/tlog-go';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogServer } from '../src/server.js';
import { anchorCredential, call } from '../src/testing/index.js';

interface LiveAnswer {
  size: number;
  root: string;
  oldSize: number;
  leafHashes: string[];
  tilesRead: string[];
}

const ORIGIN = 'log.example/main';
const LEAVES = [0, 255, 256, 299, 300, 511, 512, 519];

/**
 * `--tiles-dir`: the log writes its tlog-tiles as files, and Python's `http.server` (a plain static file
 * server, not ours) serving that directory is the whole read-only endpoint: with the log stopped, Go's
 * sumdb/tlog (test/tlog-go) opens the cosigned checkpoint file, checks every tile it reads against the signed
 * root, proves entries of the bundles included and an earlier checkpoint consistent. A restart writes back
 * the files that went missing, byte for byte.
 */
describe('--tiles-dir served by a plain web server, read by Go', () => {
  let dir: TempDir;
  let binary: string;
  let witness: VctLogServer;
  let log: VctLogServer | undefined;
  let files: ChildProcess | undefined;
  let filesUrl: string;
  const logKey = KeyPair.generate('Ed25519');
  const verifierKey = ed25519VerifierKey(ORIGIN, logKey.publicKeyBytes());

  const startLog = async (): Promise<VctLogServer> => {
    const keyFile = join(dir.path, 'log-key.pem');
    await writeFile(keyFile, logKey.privateKeyPem(), { mode: 0o600 });
    const server = createServer({
      dataDir: join(dir.path, 'log'),
      keyFile,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      integrationBatchSize: 10_000,
      tlogOrigin: 'log.example/{alias}',
      tilesDir: join(dir.path, 'tiles'),
      witnesses: [`${witness.witnessVerifierKey}@${witness.url}`],
    });
    await server.start();
    return server;
  };
  const addCredentials = async (server: VctLogServer, from: number, to: number): Promise<void> => {
    let next = from;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < to) {
          const n = next++;
          const reply = await call(`${server.url}/main/v1/add-vc`, { json: anchorCredential(`tiles-dir-${n}`) });
          if (reply.status !== 200) throw new Error(`add-vc ${n}: ${reply.status} ${reply.text}`);
        }
      }),
    );
    await server.integrateNow();
    // The round's own afterRound is under way; these wait for it and run one more (coalesced).
    await server.cosignNow();
    await server.writeTilesNow();
  };
  const tilesFile = (path: string) => join(dir.path, 'tiles', 'main', path);

  beforeAll(async () => {
    binary = await ensureTlogGoClient();
    dir = await makeTempDir('vct-tiles-dir-');
    witness = createServer({
      dataDir: join(dir.path, 'witness'),
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      witnessLogs: [verifierKey],
      witnessName: 'w1.example/witness',
    });
    await witness.start();
    await mkdir(join(dir.path, 'tiles'));
    const port = await freePort();
    files = spawn(
      'python3',
      ['-m', 'http.server', '--bind', '127.0.0.1', String(port), '--directory', join(dir.path, 'tiles')],
      { stdio: 'ignore' },
    );
    filesUrl = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${filesUrl}/`).catch(() => undefined))?.ok === true, {
      timeoutMs: 30_000,
    });
  }, 300_000);

  afterAll(async () => {
    files?.kill();
    await log?.stop();
    await witness?.stop();
    await dir?.remove();
  });

  it('is a complete tlog-tiles endpoint: Go verifies the cosigned checkpoint, tiles, inclusion and consistency', async () => {
    log = await startLog();
    await addCredentials(log, 0, 300);
    const first = await readFile(tilesFile('checkpoint'), 'utf8');
    expect(first).toBe((await call(`${log.url}/main/checkpoint`)).text);
    await addCredentials(log, 300, 520);
    const sth = (await call<{ sha256_root_hash: string }>(`${log.url}/main/v1/get-sth`)).body;
    const entries = (
      await call<{ entries: Array<{ leaf_input: string }> }>(`${log.url}/main/v1/get-entries?start=0&end=519`)
    ).body.entries;
    await log.stop();
    log = undefined;

    // The static server's checkpoint: signed by the log and cosigned by the witness.
    const served = await fetch(`${filesUrl}/main/checkpoint`);
    expect(served.status).toBe(200);
    const note = await served.text();
    const opened = openNote(note, [parseVerifierKey(verifierKey)]);
    expect(parseCheckpoint(opened.text)).toMatchObject({ origin: ORIGIN, size: 520 });
    const cosigner = parseCosignatureVerifierKey(witness.witnessVerifierKey ?? '');
    expect(verifyCosignatures(opened.text, opened.unverified, [cosigner]).map((c) => c.name)).toEqual([
      'w1.example/witness',
    ]);

    const go = await askTlogGo<LiveAnswer>(binary, {
      live: { url: `${filesUrl}/main`, verifierKey, origin: ORIGIN, oldNote: first, leaves: LEAVES },
    });
    expect(go).toMatchObject({ size: 520, oldSize: 300, root: sth.sha256_root_hash });
    expect(go.tilesRead).toEqual(expect.arrayContaining(['tile/0/000', 'tile/0/002.p/8', 'tile/1/000.p/2']));
    expect(go.leafHashes).toEqual(
      LEAVES.map((i) => leafHash(Buffer.from(entries[i]?.leaf_input ?? '', 'base64')).toString('base64')),
    );
    // The partial tiles of the earlier head stay (a reader of that checkpoint asks for them), and no
    // temporary file is left beside the tiles.
    expect((await stat(tilesFile('tile/0/001.p/44'))).size).toBe(44 * 32);
    expect((await stat(tilesFile('tile/entries/001.p/44'))).isFile()).toBe(true);
    const names = await readdir(join(dir.path, 'tiles'), { recursive: true });
    expect(names.filter((name) => name.includes('.tmp-'))).toEqual([]);
  }, 300_000);

  it('catches the directory up from the store at start: missing files are written again, the same bytes', async () => {
    const paths = ['tile/0/000', 'tile/entries/001', 'tile/0/002.p/8', 'tile/1/000.p/2', 'checkpoint'];
    const before = new Map<string, Buffer>();
    for (const path of paths) before.set(path, await readFile(tilesFile(path)));
    for (const path of paths) await rm(tilesFile(path));
    expect((await fetch(`${filesUrl}/main/tile/0/000`)).status).toBe(404);

    log = await startLog();
    await log.cosignNow();
    await log.writeTilesNow();
    for (const path of paths.filter((p) => p !== 'checkpoint'))
      expect(await readFile(tilesFile(path)), path).toEqual(before.get(path));
    // The checkpoint is the one served now (a new timestamp after the restart is allowed), of the same tree.
    const note = await readFile(tilesFile('checkpoint'), 'utf8');
    expect(note).toBe((await call(`${log.url}/main/checkpoint`)).text);
    expect(parseCheckpoint(openNote(note, [parseVerifierKey(verifierKey)]).text)).toMatchObject({ size: 520 });
    expect((await fetch(`${filesUrl}/main/tile/0/000`)).status).toBe(200);
  }, 120_000);

  it('logs a failed write and goes on; the next round writes what was missed', async () => {
    const server = log as VctLogServer;
    const main = join(dir.path, 'tiles', 'main');
    // A file where the alias's directory was: no tile can be written under it.
    await rename(main, `${main}.aside`);
    await writeFile(main, 'not a directory');
    await addCredentials(server, 520, 523);
    expect((await call<{ tree_size: number }>(`${server.url}/main/v1/get-sth`)).body.tree_size).toBe(523);
    expect(await readFile(main, 'utf8')).toBe('not a directory');

    await rm(main);
    await rename(`${main}.aside`, main);
    await server.writeTilesNow();
    expect((await stat(tilesFile('tile/0/002.p/11'))).size).toBe(11 * 32);
    expect((await stat(tilesFile('tile/entries/002.p/11'))).isFile()).toBe(true);
    const note = await readFile(tilesFile('checkpoint'), 'utf8');
    expect(parseCheckpoint(openNote(note, [parseVerifierKey(verifierKey)]).text)).toMatchObject({ size: 523 });
  }, 120_000);
});

describe('--tiles-dir of a P-256 log', () => {
  it('writes the tiles but no checkpoint; a bundle holding an entry over 64 KiB is left out, the rest go on', async () => {
    const dir = await makeTempDir('vct-tiles-dir-p256-');
    const tiles = join(dir.path, 'tiles', 'main');
    const server = createServer({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      keyType: 'P-256',
      tilesDir: join(dir.path, 'tiles'),
    });
    try {
      await server.start();
      for (const name of ['a', 'b', 'c']) {
        const reply = await call(`${server.url}/main/v1/add-vc`, { json: anchorCredential(name) });
        expect(reply.status).toBe(200);
      }
      await server.integrateNow();
      await server.writeTilesNow();
      expect((await stat(join(tiles, 'tile/0/000.p/3'))).size).toBe(3 * 32);
      expect((await stat(join(tiles, 'tile/entries/000.p/3'))).isFile()).toBe(true);
      await expect(stat(join(tiles, 'checkpoint'))).rejects.toThrow(/ENOENT/);
      // add-vc takes up to 1 MB; a C2SP bundle's lengths are 16-bit.
      const large = await call(`${server.url}/main/v1/add-vc`, { json: anchorCredential('x'.repeat(70_000)) });
      expect(large.status).toBe(200);
      await server.integrateNow();
      const more = await call(`${server.url}/main/v1/add-vc`, { json: anchorCredential('d') });
      expect(more.status).toBe(200);
      await server.integrateNow();
      await server.writeTilesNow();
      expect((await stat(join(tiles, 'tile/0/000.p/5'))).size).toBe(5 * 32);
      await expect(stat(join(tiles, 'tile/entries/000.p/5'))).rejects.toThrow(/ENOENT/);
    } finally {
      await server.stop();
      await dir.remove();
    }
  }, 120_000);
});
