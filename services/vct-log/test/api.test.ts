import { canonicalize as jcs } from '@anchor/common/encoding';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { signDocument } from '@anchor/common/jsonld';
import { leafHash, rootOfLeafHashes, verifyConsistency, verifyInclusion } from '@anchor/common/merkle';
import { parseLeafInput, type AddVcResponse, type SignedTreeHead } from '@anchor/common/vct';
import { ed25519DidDocument } from '@anchor/testing/did-web-site';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogServer } from '../src/server.js';
import {
  addVcSignatureVerifies,
  anchorCredential,
  call,
  leafHashFor,
  nquadsOf,
  sthSignatureVerifies,
} from '../src/testing/index.js';

const ISSUER_OK = 'did:web:node1.example.com';
const ISSUER_OTHER = 'did:web:node2.example.com';

describe('vct-log API', () => {
  let dir: TempDir;
  let server: VctLogServer;
  let base: string;

  beforeAll(async () => {
    dir = await makeTempDir('vct-api-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'mem' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      maxGetEntries: 5,
      requestBodyLimit: '20kb',
      logs: [
        { alias: 'main', read: true, write: true, issuers: [] },
        { alias: 'restricted', read: true, write: true, issuers: [ISSUER_OK] },
        { alias: 'readonly', read: true, write: false, issuers: [] },
        { alias: 'writeonly', read: false, write: true, issuers: [] },
      ],
    });
    await server.start();
    base = server.url;
  });

  afterAll(async () => {
    await server.stop();
    await dir.remove();
  });

  const addVc = (alias: string, credential: unknown) =>
    call<AddVcResponse>(`${base}/${alias}/v1/add-vc`, { json: credential });
  const sth = async (alias = 'main') => (await call<SignedTreeHead>(`${base}/${alias}/v1/get-sth`)).body;

  describe('add-vc', () => {
    it("answers with a signed timestamp, in trustbloc/vct's shape, once the entry is stored", async () => {
      const credential = anchorCredential('first');
      const before = Date.now();
      const reply = await addVc('main', credential);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.text.endsWith('}\n')).toBe(true);
      expect(Object.keys(reply.body)).toEqual(['svct_version', 'id', 'timestamp', 'extensions', 'signature']);
      expect(reply.body).toMatchObject({ svct_version: 0, id: server.logId, extensions: '' });
      expect(reply.body.timestamp).toBeGreaterThanOrEqual(before);
      expect(reply.body.timestamp).toBeLessThanOrEqual(Date.now());
      expect(JSON.parse(Buffer.from(reply.body.signature, 'base64').toString()).algorithm).toEqual({
        signature: 'EDDSA',
        type: 'ED25519',
      });
      expect(await addVcSignatureVerifies(reply.body, credential, server.publicKey)).toBe(true);
      expect(
        await addVcSignatureVerifies(
          { ...reply.body, timestamp: reply.body.timestamp + 1 },
          credential,
          server.publicKey,
        ),
      ).toBe(false);
    });

    it('logs the entry at the next integration, where a client finds it by its own leaf hash', async () => {
      const credential = anchorCredential('findable');
      const { body: added } = await addVc('main', credential);
      const hash = (await leafHashFor(credential, added.timestamp)).toString('base64');
      const early = await call(
        `${base}/main/v1/get-proof-by-hash?hash=${encodeURIComponent(hash)}&tree_size=${Math.max(1, (await sth()).tree_size)}`,
      );
      expect(early.status).toBe(404);

      await server.integrateNow();
      const head = await sth();
      expect(sthSignatureVerifies(head, server.publicKey)).toBe(true);
      const proof = await call<{ leaf_index: number; audit_path: string[] | null }>(
        `${base}/main/v1/get-proof-by-hash?hash=${encodeURIComponent(hash)}&tree_size=${head.tree_size}`,
      );
      expect(proof.status).toBe(200);
      expect(Object.keys(proof.body)).toEqual(['leaf_index', 'audit_path']);
      // Readable from another origin, as the tree head is: a node's explorer checks the inclusion in the page.
      const again = await fetch(
        `${base}/main/v1/get-proof-by-hash?hash=${encodeURIComponent(hash)}&tree_size=${head.tree_size}`,
      );
      expect(again.headers.get('access-control-allow-origin')).toBe('*');
      expect(
        (await fetch(`${base}/main/v1/get-entries?start=0&end=0`)).headers.get('access-control-allow-origin'),
      ).toBeNull();
      const path = (proof.body.audit_path ?? []).map((node) => Buffer.from(node, 'base64'));
      expect(
        verifyInclusion(
          proof.body.leaf_index,
          head.tree_size,
          Buffer.from(hash, 'base64'),
          path,
          Buffer.from(head.sha256_root_hash, 'base64'),
        ),
      ).toBe(true);

      const entry = await call<{ leaf_input: string; extra_data: string | null; audit_path: string[] | null }>(
        `${base}/main/v1/get-entry-and-proof?leaf_index=${proof.body.leaf_index}&tree_size=${head.tree_size}`,
      );
      expect(Object.keys(entry.body)).toEqual(['leaf_input', 'extra_data', 'audit_path']);
      const leaf = parseLeafInput(Buffer.from(entry.body.leaf_input, 'base64').toString());
      expect(leaf.timestamped_entry.timestamp).toBe(added.timestamp);
      expect(Buffer.from(leaf.timestamped_entry.vc_entry, 'base64').toString()).toBe(await nquadsOf(credential));
      expect(entry.body.extra_data).toBeNull();
      expect(entry.body.audit_path).toEqual(proof.body.audit_path);
    });

    it('answers a resubmission (reformatted, with a proof added) with the first timestamp and does not grow the tree', async () => {
      const key = KeyPair.generate('Ed25519');
      const did = didKeyFromKeyPair(key);
      const credential = anchorCredential('dup', did);
      const { body: first } = await addVc('main', credential);
      await server.integrateNow();
      const size = (await sth()).tree_size;

      const reordered = Object.fromEntries(Object.entries(credential).reverse());
      const signed = await signDocument(credential, {
        key,
        verificationMethod: `${did}#${did.slice('did:key:'.length)}`,
        allowUndefinedTerms: ['href', 'rel', 'AnchorLink'],
      });
      for (const again of [credential, reordered, signed]) {
        const reply = await addVc('main', again);
        expect(reply.status).toBe(200);
        expect(reply.body.timestamp).toBe(first.timestamp);
        expect(await addVcSignatureVerifies(reply.body, credential, server.publicKey)).toBe(true);
      }
      const concurrent = await Promise.all(Array.from({ length: 10 }, () => addVc('main', credential)));
      expect(new Set(concurrent.map((r) => r.body.timestamp))).toEqual(new Set([first.timestamp]));
      await server.integrateNow();
      expect((await sth()).tree_size).toBe(size);
    });

    it('checks embedded proofs (did:key) and keeps them as extra_data, outside the entry', async () => {
      const key = KeyPair.generate('Ed25519');
      const did = didKeyFromKeyPair(key);
      const signed = await signDocument(anchorCredential('proofed', did), {
        key,
        verificationMethod: `${did}#${did.slice('did:key:'.length)}`,
        domain: 'https://vct.example.com/main',
        allowUndefinedTerms: ['href', 'rel', 'AnchorLink'],
      });
      const reply = await addVc('main', signed);
      expect(reply.status).toBe(200);
      expect(await addVcSignatureVerifies(reply.body, anchorCredential('proofed', did), server.publicKey)).toBe(true);
      await server.integrateNow();
      const head = await sth();
      const entries = await call<{ entries: Array<{ leaf_input: string; extra_data: string | null }> }>(
        `${base}/main/v1/get-entries?start=${head.tree_size - 1}&end=${head.tree_size - 1}`,
      );
      expect(entries.body.entries[0]?.extra_data).toBe(
        Buffer.from(jcs([(signed as { proof: unknown }).proof])).toString('base64'),
      );

      const tampered = { ...signed, issuanceDate: '2025-01-01T00:00:00Z' };
      const rejected = await addVc('main', tampered);
      expect(rejected.status).toBe(400);
      expect(rejected.body).toEqual({
        message: expect.stringMatching(/^parse credential: proof verification failed: proof 0 \(signature\)/),
      });
    });

    it('rejects proofs whose key cannot be found', async () => {
      const key = KeyPair.generate('Ed25519');
      const did = didKeyFromKeyPair(key);
      const signed = await signDocument(anchorCredential('wrong-vm', did), {
        key,
        verificationMethod: `${did}#other`,
        allowUndefinedTerms: ['href', 'rel', 'AnchorLink'],
      });
      const reply = await addVc('main', signed);
      expect(reply.status).toBe(400);
      expect((reply.body as unknown as { message: string }).message).toMatch(
        /^parse credential: proof verification failed: proof 0 \(verification-method\)/,
      );
    });

    it('rejects what is not a credential with 400 parse credential', async () => {
      const cases: Array<[string, { json?: unknown; body?: string; headers?: Record<string, string> }, RegExp]> = [
        ['no body', { body: '' }, /^parse credential: the request body must be a verifiable credential/],
        [
          'not JSON, any content type',
          { body: 'hello', headers: { 'content-type': 'text/plain' } },
          /^parse credential: malformed JSON/,
        ],
        ['a JSON string', { json: 'a credential' }, /^parse credential: invalid credential: \/ must be an object/],
        [
          'malformed JSON',
          { body: '{"a":', headers: { 'content-type': 'application/json' } },
          /^parse credential: malformed JSON/,
        ],
        ['an array', { json: [anchorCredential(1)] }, /^parse credential: invalid credential: \/ must be an object/],
        [
          'no issuer',
          { json: { ...anchorCredential(2), issuer: undefined } },
          /^parse credential: invalid credential: .*issuer/,
        ],
        [
          'no issuanceDate',
          { json: { ...anchorCredential(3), issuanceDate: undefined } },
          /^parse credential: invalid credential: .*issuanceDate/,
        ],
        [
          'not a VerifiableCredential',
          { json: { ...anchorCredential(4), type: ['AnchorCredential'] } },
          /^parse credential: invalid credential: \/type/,
        ],
        [
          'an unknown context',
          {
            json: {
              ...anchorCredential(5),
              '@context': ['https://www.w3.org/2018/credentials/v1', 'https://example.com/ctx'],
            },
          },
          /^parse credential: .*example\.com\/ctx/,
        ],
        [
          'an undefined term',
          { json: { ...anchorCredential(6), credentialSubject: { id: 'did:key:z1', nickname: 'x' } } },
          /^parse credential: invalid JSON-LD: term "nickname"/,
        ],
        [
          'a lone surrogate (it has no UTF-8 form, so no canonical form to log)',
          { json: { ...anchorCredential(9), issuer: 'did:example:\ud800' } },
          /^parse credential: credential member issuer contains a lone UTF-16 surrogate/,
        ],
        [
          'a __proto__ member',
          { body: JSON.stringify(anchorCredential(10)).replace('{', '{"__proto__":{"admin":true},') },
          /^parse credential: credential has a member named __proto__/,
        ],
        [
          'a member given twice',
          { body: JSON.stringify(anchorCredential(11)).replace('{', '{"issuer":"did:web:evil.example.com",') },
          /^parse credential: credential has the member issuer more than once/,
        ],
        [
          'a proof that is not an object',
          { json: { ...anchorCredential(7), proof: 'signed' } },
          /^parse credential: invalid credential: \/proof/,
        ],
      ];
      for (const [what, init, message] of cases) {
        const reply = await call<{ message: string }>(`${base}/main/v1/add-vc`, { method: 'POST', ...init });
        expect(reply.status, what).toBe(400);
        expect(reply.body.message, what).toMatch(message);
      }
      const tooLarge = await call<{ message: string }>(`${base}/main/v1/add-vc`, {
        json: { ...anchorCredential(8), padding: 'x'.repeat(30_000) },
      });
      expect(tooLarge.status).toBe(413);
    });

    it('accepts a credential sent without a JSON content type, as trustbloc/vct reads any body', async () => {
      const credential = anchorCredential('form-typed');
      const reply = await call<AddVcResponse>(`${base}/main/v1/add-vc`, {
        method: 'POST',
        body: JSON.stringify(credential),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(reply.status).toBe(200);
      expect(await addVcSignatureVerifies(reply.body, credential, server.publicKey)).toBe(true);
    });

    it('applies the issuer allow-list of an alias', async () => {
      const refused = await addVc('restricted', anchorCredential('r1', ISSUER_OTHER));
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ message: `bad request: issuer ${ISSUER_OTHER} is not in a list` });
      const objectIssuer = await addVc('restricted', {
        ...anchorCredential('r2'),
        issuer: { id: ISSUER_OTHER, name: 'Other' },
      });
      expect(objectIssuer.status).toBe(400);
      expect((await addVc('restricted', anchorCredential('r3', ISSUER_OK))).status).toBe(200);
      expect((await addVc('main', anchorCredential('r4', ISSUER_OTHER))).status).toBe(200);
    });
  });

  describe('aliases and permissions', () => {
    it('answers 404 for an unknown alias and 403 for an action the alias does not permit', async () => {
      const unknown = await call(`${base}/nope/v1/get-sth`);
      expect(unknown).toMatchObject({
        status: 404,
        body: { message: 'has permissions: alias "nope" is not supported' },
      });
      expect((await addVc('nope', anchorCredential(1))).status).toBe(404);
      expect(await addVc('readonly', anchorCredential(1))).toMatchObject({
        status: 403,
        body: { message: 'has permissions: action forbidden for "readonly"' },
      });
      for (const path of [
        'get-sth',
        'get-issuers',
        'get-sth-consistency?first=1&second=2',
        'get-proof-by-hash?hash=&tree_size=1',
        'get-entries?start=1&end=2',
        'get-entry-and-proof?leaf_index=1&tree_size=2',
      ]) {
        expect(await call(`${base}/writeonly/v1/${path}`), path).toMatchObject({
          status: 403,
          body: { message: 'has permissions: action forbidden for "writeonly"' },
        });
      }
      expect((await addVc('writeonly', anchorCredential('w'))).status).toBe(200);
    });

    it('lists the issuers of an alias under both paths, null when any issuer is accepted', async () => {
      for (const path of ['restricted/v1/get-issuers', 'restricted/get-issuers']) {
        expect(await call(`${base}/${path}`)).toMatchObject({
          status: 200,
          body: [ISSUER_OK],
          text: `["${ISSUER_OK}"]\n`,
        });
      }
      expect(await call(`${base}/main/get-issuers`)).toMatchObject({ status: 200, text: 'null\n' });
    });

    it('answers unknown routes and methods with a JSON 404', async () => {
      expect(await call(`${base}/main/v1/nothing`)).toMatchObject({
        status: 404,
        body: { message: expect.stringContaining('no route') },
      });
      expect((await call(`${base}/main/v1/get-sth`, { method: 'POST', body: '{}' })).status).toBe(404);
    });
  });

  describe('tree reads', () => {
    let head: SignedTreeHead;
    const leafHashes: Buffer[] = [];

    beforeAll(async () => {
      for (let i = 0; i < 12; i++) await addVc('main', anchorCredential(`tree-${i}`));
      await server.integrateNow();
      head = await sth();
      // As trustbloc/vct's log monitor does: page through the entries and hash each leaf_input.
      while (leafHashes.length < head.tree_size) {
        const page = await call<{ entries: Array<{ leaf_input: string }> }>(
          `${base}/main/v1/get-entries?start=${leafHashes.length}&end=${head.tree_size - 1}`,
        );
        for (const entry of page.body.entries) leafHashes.push(leafHash(Buffer.from(entry.leaf_input, 'base64')));
      }
    });

    it("serves signed tree heads in trustbloc/vct's shape", async () => {
      const reply = await call<SignedTreeHead>(`${base}/main/v1/get-sth`);
      expect(Object.keys(reply.body)).toEqual(['tree_size', 'timestamp', 'sha256_root_hash', 'tree_head_signature']);
      expect(reply.text.endsWith('\n')).toBe(true);
      expect(sthSignatureVerifies(reply.body, server.publicKey)).toBe(true);
      expect(sthSignatureVerifies({ ...reply.body, tree_size: reply.body.tree_size - 1 }, server.publicKey)).toBe(
        false,
      );
    });

    it('pages get-entries at the cap and stops at the end of the tree; the entries rebuild the signed root', async () => {
      expect(leafHashes).toHaveLength(head.tree_size);
      expect(rootOfLeafHashes(leafHashes).toString('base64')).toBe(head.sha256_root_hash);
      const capped = await call<{ entries: unknown[] }>(`${base}/main/v1/get-entries?start=0&end=999999`);
      expect(capped.body.entries).toHaveLength(5);
      const tail = await call<{ entries: unknown[] }>(
        `${base}/main/v1/get-entries?start=${head.tree_size - 2}&end=${head.tree_size + 10}`,
      );
      expect(tail.body.entries).toHaveLength(2);
    });

    it('serves consistency proofs that verify, null when there is nothing to prove', async () => {
      for (const first of [1, 2, 3, 5, 8]) {
        const reply = await call<{ consistency: string[] | null }>(
          `${base}/main/v1/get-sth-consistency?first=${first}&second=${head.tree_size}`,
        );
        const proof = (reply.body.consistency ?? []).map((node) => Buffer.from(node, 'base64'));
        expect(
          verifyConsistency(
            first,
            head.tree_size,
            rootOfLeafHashes(leafHashes.slice(0, first)),
            Buffer.from(head.sha256_root_hash, 'base64'),
            proof,
          ),
        ).toBe(true);
      }
      expect((await call(`${base}/main/v1/get-sth-consistency?first=0&second=${head.tree_size}`)).text).toBe(
        '{"consistency":null}\n',
      );
      expect((await call(`${base}/main/v1/get-sth-consistency?first=4&second=4`)).text).toBe('{"consistency":null}\n');
    });

    it('accepts a hash whose + the client forgot to URL-encode', async () => {
      const index = leafHashes.findIndex((hash) => hash.toString('base64').includes('+'));
      if (index < 0) return; // no such hash among these leaves
      const hash = leafHashes[index]!.toString('base64');
      const reply = await call<{ leaf_index: number }>(
        `${base}/main/v1/get-proof-by-hash?hash=${hash.replace(/=/g, '%3D')}&tree_size=${head.tree_size}`,
      );
      expect(reply.body.leaf_index).toBe(index);
    });

    it("answers every malformed query with trustbloc/vct's 4xx and message", async () => {
      const size = head.tree_size;
      const validHash = encodeURIComponent(leafHashes[0]!.toString('base64'));
      const cases: Array<[string, number, string | RegExp]> = [
        ['get-sth-consistency?first=a&second=1', 400, 'validation failed: parameter "first" is not a number'],
        ['get-sth-consistency?first=1', 400, 'validation failed: parameter "second" is not a number'],
        ['get-sth-consistency?first=1e3&second=2000', 400, 'validation failed: parameter "first" is not a number'],
        [
          'get-sth-consistency?first=99999999999999999999&second=1',
          400,
          'validation failed: parameter "first" is not a number',
        ],
        [
          'get-sth-consistency?first=-1&second=0',
          400,
          'validate GetSTHConsistency request: validation failed: first_tree_size -1 and second_tree_size 0 values must be >= 0',
        ],
        [
          'get-sth-consistency?first=3&second=2',
          400,
          'validate GetSTHConsistency request: validation failed: first_tree_size 3 and second_tree_size 2 values is not a valid range',
        ],
        [
          `get-sth-consistency?first=1&second=${size + 1}`,
          400,
          `validation failed: need tree size: ${size + 1} for proof but only got: ${size}`,
        ],
        ['get-proof-by-hash?hash=x&tree_size=abc', 400, 'validation failed: parameter "tree_size" is not a number'],
        [
          'get-proof-by-hash?hash=x&tree_size=0',
          400,
          'validate GetProofByHash request: validation failed: tree_size value must be greater than zero',
        ],
        ['get-proof-by-hash?hash=%%%&tree_size=1', 400, /^invalid base64 hash/],
        ['get-proof-by-hash?hash=QUJD&tree_size=1', 400, 'invalid base64 hash: a leaf hash is 32 bytes, got 3'],
        ['get-proof-by-hash?tree_size=1', 400, 'invalid base64 hash: a leaf hash is 32 bytes, got 0'],
        [
          `get-proof-by-hash?hash=${validHash}&tree_size=${size + 1}`,
          404,
          `not found: got tree size: ${size} but we expected: ${size + 1}`,
        ],
        [
          `get-proof-by-hash?hash=${encodeURIComponent(Buffer.alloc(32).toString('base64'))}&tree_size=${size}`,
          404,
          /^not found: no leaf with hash/,
        ],
        ['get-entries?start=x&end=1', 400, 'validation failed: parameter "start" is not a number'],
        [
          'get-entries?start=0&end=-1',
          400,
          'validate GetEntries request: validation failed: start 0 and end -1 values must be >= 0',
        ],
        [
          'get-entries?start=3&end=2',
          400,
          'validate GetEntries request: validation failed: start 3 and end 2 values is not a valid range',
        ],
        [
          `get-entries?start=${size}&end=${size + 5}`,
          400,
          `need tree size: ${size + 1} to get leaves but only got: ${size}`,
        ],
        [
          'get-entry-and-proof?leaf_index=a&tree_size=1',
          400,
          'validation failed: parameter "leaf_index" is not a number',
        ],
        [
          'get-entry-and-proof?leaf_index=0&tree_size=0',
          400,
          'validate GetEntryAndProof request: validation failed: tree_size value must be greater than zero',
        ],
        [
          'get-entry-and-proof?leaf_index=-1&tree_size=1',
          400,
          'validate GetEntryAndProof request: validation failed: leaf_index must be greater than or equal to zero',
        ],
        [
          'get-entry-and-proof?leaf_index=1&tree_size=1',
          400,
          'validate GetEntryAndProof request: validation failed: leaf_index must be less than tree_size',
        ],
        [
          `get-entry-and-proof?leaf_index=0&tree_size=${size + 1}`,
          400,
          `bad request: need tree size: ${size + 1} for proof, got: ${size}`,
        ],
      ];
      for (const [path, status, message] of cases) {
        const reply = await call<{ message: string }>(`${base}/main/v1/${path}`);
        expect(reply.status, path).toBe(status);
        expect(reply.headers.get('content-type'), path).toMatch(/^application\/json/);
        if (typeof message === 'string') expect(reply.body.message, path).toBe(message);
        else expect(reply.body.message, path).toMatch(message);
      }
      // Validation comes before the permission check, as in trustbloc/vct.
      expect((await call<{ message: string }>(`${base}/writeonly/v1/get-entries?start=a&end=1`)).body.message).toBe(
        'validation failed: parameter "start" is not a number',
      );
      // Nothing a client sent changed the tree.
      expect(await sth()).toEqual(head);
    });

    it('refuses a repeated parameter with 400 (the one query rule of every service; Go took the first value)', async () => {
      const reply = await call<{ message: string }>(`${base}/main/v1/get-entries?start=0&start=7&end=0`);
      expect(reply).toMatchObject({
        status: 400,
        body: { message: "query parameter 'start' is given more than once" },
      });
      const webfinger = await call<{ message: string }>(`${base}/.well-known/webfinger?resource=a:b&resource=c:d`);
      expect(webfinger).toMatchObject({
        status: 400,
        body: { message: "query parameter 'resource' is given more than once" },
      });
    });
  });

  describe('webfinger, health and metrics', () => {
    it('serves the public key and ledger type of each log', async () => {
      const resource = `${server.baseUrl}/main`;
      const reply = await call<Record<string, unknown>>(
        `${base}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`,
      );
      expect(reply.status).toBe(200);
      // The key and tree heads are readable from another origin (a node's explorer checks them in the page).
      const headerOf = async (url: string, init?: RequestInit) =>
        (await fetch(url, init)).headers.get('access-control-allow-origin');
      expect(await headerOf(`${base}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`)).toBe('*');
      expect(await headerOf(`${base}/main/v1/get-sth`)).toBe('*');
      expect(reply.text).toBe(
        `{"subject":"${resource}","properties":{"https://trustbloc.dev/ns/ledger-type":"vct-v1","https://trustbloc.dev/ns/public-key":"${server.publicKey.toString('base64')}"},"links":[{"rel":"self","href":"${resource}"}]}\n`,
      );
    });

    it('answers bad WebFinger queries as trustbloc/vct does', async () => {
      const wf = (resource?: string) =>
        call(
          `${base}/.well-known/webfinger${resource === undefined ? '' : `?resource=${encodeURIComponent(resource)}`}`,
        );
      expect(await wf()).toMatchObject({ status: 400, body: { message: 'resource is required' } });
      expect(await wf('not a uri')).toMatchObject({
        status: 400,
        body: { message: 'invalid resource URI "not a uri"' },
      });
      expect(await wf('https://elsewhere.example.com/main')).toMatchObject({
        status: 404,
        body: { message: 'resource not found "https://elsewhere.example.com/main"' },
      });
      expect(await wf(`${server.baseUrl}/`)).toMatchObject({ status: 404, body: { message: 'ledger ID is required' } });
      expect(await wf(`${server.baseUrl}/maple`)).toMatchObject({
        status: 404,
        body: { message: 'ledger ID not found "maple"' },
      });
    });

    it('reports database and key health', async () => {
      const reply = await call<Record<string, unknown>>(`${base}/healthcheck`);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ dbStatus: 'success', kmsStatus: 'success', status: 'OK' });
      expect(typeof reply.body.currentTime).toBe('string');
    });

    it('counts operations per alias in the vct_ metrics', async () => {
      const reply = await call(`${base}/metrics`);
      expect(reply.status).toBe(200);
      expect(reply.text).toMatch(/^vct_add_vc\{alias="main"\} [1-9]/m);
      expect(reply.text).toMatch(/^vct_get_sth_latency_seconds_count\{alias="main"\} [1-9]/m);
      expect(reply.text).toMatch(/^vct_tree_size\{alias="main"\} [1-9]/m);
      expect(reply.text).toMatch(/^vct_add_vc_duplicates\{alias="main"\} [1-9]/m);
      expect(reply.text).toMatch(
        /^vct_http_request_duration_seconds_count\{method="GET",route="\/:alias\/v1\/get-sth",status="200"\} [1-9]/m,
      );
      expect(reply.text).toMatch(
        /^vct_http_request_duration_seconds_count\{method="POST",route="\/:alias\/v1\/add-vc",status="400"\} [1-9]/m,
      );
    });
  });
});

describe('vct-log bearer tokens', () => {
  let dir: TempDir;
  let server: VctLogServer;

  beforeAll(async () => {
    dir = await makeTempDir('vct-tokens-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'mem' },
      canonicalizeWorkers: 0,
      readTokens: ['tk1'],
      writeTokens: ['tk2', 'tk3'],
    });
    await server.start();
  });

  afterAll(async () => {
    await server.stop();
    await dir.remove();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('needs the read token to read and a write token to add; the two are separate', async () => {
    const sthUrl = `${server.url}/main/v1/get-sth`;
    expect(await call(sthUrl)).toMatchObject({
      status: 401,
      body: { message: 'credentials required: a bearer token or an HTTP signature' },
    });
    expect((await call(sthUrl)).headers.get('www-authenticate')).toBe('Bearer');
    expect((await call(sthUrl, { headers: bearer('tk2') })).status).toBe(401);
    expect((await call(sthUrl, { headers: bearer('tk1') })).status).toBe(200);
    const addUrl = `${server.url}/main/v1/add-vc`;
    expect((await call(addUrl, { json: anchorCredential('t1') })).status).toBe(401);
    expect((await call(addUrl, { json: anchorCredential('t1'), headers: bearer('tk1') })).status).toBe(401);
    expect((await call(addUrl, { json: anchorCredential('t1'), headers: bearer('tk2') })).status).toBe(200);
    expect((await call(addUrl, { json: anchorCredential('t2'), headers: bearer('tk3') })).status).toBe(200);
    const refused = await call<{ message: string }>(sthUrl, { headers: bearer('wrong') });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('invalid bearer token');
  });

  it('leaves health, WebFinger and metrics open', async () => {
    expect((await call(`${server.url}/healthcheck`)).status).toBe(200);
    expect(
      (await call(`${server.url}/.well-known/webfinger?resource=${encodeURIComponent(`${server.baseUrl}/main`)}`))
        .status,
    ).toBe(200);
    expect((await call(`${server.url}/metrics`)).status).toBe(200);
  });
});

describe('vct-log with did:web issuers, a lenient JSON-LD policy and a base URL with a path', () => {
  const key = KeyPair.generate('Ed25519');
  const did = 'did:web:issuer.example.com';
  const didDocument = ed25519DidDocument(did, key, 'assertionMethod');
  const fetched: string[] = [];
  let dir: TempDir;
  let server: VctLogServer;

  beforeAll(async () => {
    dir = await makeTempDir('vct-didweb-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'mem' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      allowUndefinedTerms: 'any',
      baseUrl: 'https://logs.example.com/vct/',
      didWebFetch: async (url) => {
        fetched.push(url);
        if (url === 'https://issuer.example.com/.well-known/did.json')
          return { status: 200, text: async () => JSON.stringify(didDocument) };
        return { status: 404, text: async () => 'not found' };
      },
    });
    await server.start();
  });

  afterAll(async () => {
    await server.stop();
    await dir.remove();
  });

  it('verifies proofs by did:web keys, fetching each DID document once', async () => {
    for (const n of [1, 2]) {
      const signed = await signDocument(anchorCredential(`web-${n}`, did), {
        key,
        verificationMethod: `${did}#key-1`,
        allowUndefinedTerms: ['href', 'rel', 'AnchorLink'],
      });
      const reply = await call<AddVcResponse>(`${server.url}/main/v1/add-vc`, { json: signed });
      expect(reply.status).toBe(200);
    }
    expect(fetched).toEqual(['https://issuer.example.com/.well-known/did.json']);
  });

  it('rejects a proof by a did:web whose document does not exist', async () => {
    const missing = 'did:web:gone.example.com';
    const signed = await signDocument(anchorCredential('gone', missing), {
      key,
      verificationMethod: `${missing}#key-1`,
      allowUndefinedTerms: ['href', 'rel', 'AnchorLink'],
    });
    const reply = await call<{ message: string }>(`${server.url}/main/v1/add-vc`, { json: signed });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^parse credential: proof verification failed: proof 0 \(verification-method\)/);
  });

  it('with "any", drops undefined terms from the entry as trustbloc/vct does', async () => {
    const credential = {
      ...anchorCredential('lenient'),
      credentialSubject: { id: 'did:key:z6Mkw', nickname: 'dropped' },
    };
    const reply = await call<AddVcResponse>(`${server.url}/main/v1/add-vc`, { json: credential });
    expect(reply.status).toBe(200);
    const same = await call<AddVcResponse>(`${server.url}/main/v1/add-vc`, {
      json: { ...credential, credentialSubject: { id: 'did:key:z6Mkw', nickname: 'changed' } },
    });
    expect(same.body.timestamp).toBe(reply.body.timestamp);
  });

  it('serves WebFinger for aliases under the base URL path', async () => {
    const wf = (resource: string) =>
      call(`${server.url}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`);
    expect((await wf('https://logs.example.com/vct/main')).status).toBe(200);
    expect(await wf('https://logs.example.com/main')).toMatchObject({
      status: 404,
      body: { message: 'ledger ID is required' },
    });
    expect(await wf('https://logs.example.com/vct/other')).toMatchObject({
      status: 404,
      body: { message: 'ledger ID not found "other"' },
    });
  });
});
