import { leafHash } from '@anchor/common/merkle';
import { openNote, parseCheckpoint, parseVerifierKey } from '@anchor/common/tlog';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { askTlogGo, ensureTlogGoClient } from '@anchor/testing/tlog-go';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tlogOriginOf } from '../src/api-feature.js';
import { createServer, type VctLogServer } from '../src/server.js';
import { anchorCredential, call } from '../src/testing/index.js';

interface LiveAnswer {
  size: number;
  root: string;
  oldSize: number;
  leafHashes: string[];
  tilesRead: string[];
}

/** test/tlog-go's live mode: golang.org/x/mod's sumdb/note and sumdb/tlog as a client of the running log. */
const askGo = (binary: string, live: object): Promise<LiveAnswer> => askTlogGo<LiveAnswer>(binary, { live });

async function addCredentials(server: VctLogServer, from: number, to: number): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < to) {
        const n = next++;
        const reply = await call(`${server.url}/main/v1/add-vc`, { json: anchorCredential(`tiles-${n}`) });
        if (reply.status !== 200) throw new Error(`add-vc ${n}: ${reply.status} ${reply.text}`);
      }
    }),
  );
  await server.integrateNow();
}

/**
 * A live log read as C2SP tlog-tiles by Go's sumdb/tlog: the checkpoint opens with the log's note verifier
 * key, every hash tile Go reads checks against the signed root, entries from the bundles prove included, and
 * an earlier checkpoint proves consistent with the current one.
 */
describe('tlog-tiles of a live log, read by Go (golang.org/x/mod sumdb/tlog)', () => {
  let dir: TempDir;
  let server: VctLogServer;
  let binary: string;

  beforeAll(async () => {
    binary = await ensureTlogGoClient();
    dir = await makeTempDir('vct-tiles-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      integrationBatchSize: 10_000,
    });
    await server.start();
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('serves a signed checkpoint and tiles Go verifies: inclusion and consistency', async () => {
    const origin = `${server.baseUrl.replace(/^http:\/\//, '')}/main`;
    const verifierKey = server.noteVerifierKey('main');
    expect(verifierKey.startsWith(`${origin}+`)).toBe(true);

    await addCredentials(server, 0, 300);
    const first = await call(`${server.url}/main/checkpoint`);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=5');
    const opened = openNote(first.text, [parseVerifierKey(verifierKey)]);
    expect(parseCheckpoint(opened.text)).toMatchObject({ origin, size: 300, extensions: [] });

    await addCredentials(server, 300, 520);
    const go = await askGo(binary, {
      url: `${server.url}/main`,
      verifierKey,
      origin,
      oldNote: first.text,
      leaves: [0, 255, 256, 299, 300, 511, 512, 519],
    });
    expect(go).toMatchObject({ size: 520, oldSize: 300 });
    const sth = (await call<{ sha256_root_hash: string }>(`${server.url}/main/v1/get-sth`)).body;
    expect(go.root).toBe(sth.sha256_root_hash);
    expect(go.tilesRead).toEqual(expect.arrayContaining(['tile/0/000', 'tile/0/002.p/8', 'tile/1/000.p/2']));
    // The leaves Go read from the entry bundles are the log's leaves.
    const entries = (
      await call<{ entries: Array<{ leaf_input: string }> }>(`${server.url}/main/v1/get-entries?start=0&end=519`)
    ).body.entries;
    expect(go.leafHashes).toEqual(
      [0, 255, 256, 299, 300, 511, 512, 519].map((i) =>
        leafHash(Buffer.from(entries[i]?.leaf_input ?? '', 'base64')).toString('base64'),
      ),
    );
  }, 300_000);

  it('marks full tiles immutable, partial ones short-lived, and answers 404 beyond the tree or for no tile', async () => {
    const full = await fetch(`${server.url}/main/tile/0/001`);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('application/octet-stream');
    expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await full.arrayBuffer()).byteLength).toBe(256 * 32);
    const bundle = await fetch(`${server.url}/main/tile/entries/002.p/8`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=5');
    // An older, narrower partial tile stays served: a client of an older checkpoint asks for it.
    expect((await fetch(`${server.url}/main/tile/0/001.p/44`)).status).toBe(200);
    for (const [path, message] of [
      ['tile/0/002', /tile\/0\/002 is beyond the log's tree of size 520/],
      ['tile/0/002.p/9', /beyond the log's tree of size 520/],
      ['tile/entries/003.p/1', /beyond the log's tree of size 520/],
      ['tile/1/000', /beyond/],
      ['tile/0/2', /is not a tile path/],
      ['tile/0/x000/002', /is not a tile path/],
      ['tile/0/000.p/256', /is not a tile path/],
    ] as const) {
      const reply = await call<{ message: string }>(`${server.url}/main/${path}`);
      expect(reply.status, path).toBe(404);
      expect(reply.body.message, path).toMatch(message);
    }
    expect((await call(`${server.url}/other/checkpoint`)).status).toBe(404);
  });
});

describe('checkpoint origins', () => {
  it('are the base URL without its scheme and the alias, or --tlog-origin with {alias} replaced', () => {
    expect(tlogOriginOf(undefined, 'https://log.example.com/vct', 'main')).toBe('log.example.com/vct/main');
    expect(tlogOriginOf(undefined, 'http://[::1]:5678', 'b')).toBe('[::1]:5678/b');
    expect(tlogOriginOf('example.com/{alias}/log', 'http://x', 'main')).toBe('example.com/main/log');
    expect(tlogOriginOf('example.com/one', 'http://x', 'main')).toBe('example.com/one');
  });
});

describe('tlog-tiles of a P-256 log', () => {
  it('serves the tiles but no checkpoint, saying why; a bundle with an entry over 64 KiB says why too', async () => {
    const dir = await makeTempDir('vct-tiles-p256-');
    const server = createServer({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      keyType: 'P-256',
    });
    try {
      await server.start();
      const reply = await call<{ message: string }>(`${server.url}/main/checkpoint`);
      expect(reply.status).toBe(404);
      expect(reply.body.message).toMatch(/signed with Ed25519 and this log's key is P-256/);
      await addCredentials(server, 0, 3);
      expect((await fetch(`${server.url}/main/tile/0/000.p/3`)).status).toBe(200);
      // A leaf over a bundle's 16-bit lengths (add-vc takes up to 1 MB): its bundles say so, the rest serve.
      const large = await call(`${server.url}/main/v1/add-vc`, { json: anchorCredential('x'.repeat(70_000)) });
      expect(large.status).toBe(200);
      await server.integrateNow();
      const bundle = await call<{ message: string }>(`${server.url}/main/tile/entries/000.p/4`);
      expect(bundle.status).toBe(500);
      expect(bundle.body.message).toMatch(/^entry 3 is \d+ bytes, over the 65,535 of a C2SP entry bundle/);
      expect((await fetch(`${server.url}/main/tile/entries/000.p/3`)).status).toBe(200);
      expect((await fetch(`${server.url}/main/tile/0/000.p/4`)).status).toBe(200);
    } finally {
      await server.stop();
      await dir.remove();
    }
  }, 120_000);
});
