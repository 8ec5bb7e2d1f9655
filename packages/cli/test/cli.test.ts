/**
 * The built `anchor` binary run as a user runs it, against a real local federation (a vct-log and two nodes
 * started as their binaries, wired by dev-env): DIDs through their whole life, follows and witnesses,
 * policy, the log's proofs, and the failures a user meets (each one line and a non-zero exit code).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceBin, startLocalFederation, type LocalFederation } from '@anchor/dev-env';
import { freePort, freePortRun, makeTempDir, runProcess, startProcess, type TempDir } from '@anchor/testing/process';
import { VcsClient } from '@anchor/common/clients';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, GROUPS, renderCliDocs } from '../src/index.js';
import { GLOBAL_OPTIONS } from '../src/command.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(ROOT, 'packages', 'cli', 'dist', 'main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const credential = (n: number) => ({
  '@context': ['https://www.w3.org/2018/credentials/v1'],
  id: `urn:uuid:cli-test-${n}-${Date.now()}`,
  type: ['VerifiableCredential'],
  issuer: 'did:example:issuer',
  issuanceDate: '2026-11-26T00:00:00Z',
  credentialSubject: { id: `did:example:subject-${n}` },
});

// Each test runs the binary several times and waits for anchors: minutes on a loaded machine, not seconds.
describe('anchor (the built binary) against a local federation', { timeout: 150_000 }, () => {
  let dir: TempDir;
  let federation: LocalFederation;
  let node1: string;
  let node2: string;
  let service2: string;
  let logUrl: string;

  const anchor = async (...args: string[]): Promise<Run> => {
    const result = await runProcess(BIN, { args, cwd: dir.path, env: { NO_COLOR: '1' }, timeoutMs: 150_000 });
    return { code: result.code, stdout: result.stdout, stderr: result.stderr };
  };
  const json = async <T>(...args: string[]): Promise<T> => {
    const result = await anchor(...args, '--json');
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  beforeAll(async () => {
    dir = await makeTempDir('anchor-cli-');
    federation = await startLocalFederation({
      dataDir: join(dir.path, 'federation'),
      nodes: 2,
      logPort: await freePort(),
      firstNodePort: await freePortRun(2),
      kmsPort: await freePort(),
    });
    [node1, node2] = federation.layout.nodes.map((node) => node.url) as [string, string];
    service2 = await federation.admins[1]!.serviceId();
    logUrl = federation.layout.log.logUrl;
  }, 180_000);

  afterAll(async () => {
    await federation?.stop();
    await dir?.remove();
  });

  it('creates a DID, waits until published (showing progress), and resolves it on the other node', async () => {
    const created = await anchor(
      'did',
      'create',
      '-n',
      node1,
      '-k',
      'alice.json',
      '--wait',
      '--add-service',
      'hub,LinkedDomains,https://alice.example',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/waiting until .* resolves the create as published/);
    expect(created.stderr).toMatch(/published: did:node:/);
    expect((await stat(join(dir.path, 'alice.json'))).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(await readFile(join(dir.path, 'alice.json'), 'utf8')) as { did: string };
    const resolved = await json<{
      didDocumentMetadata: { method: { published: boolean } };
      didDocument: { service: unknown[] };
    }>('did', 'resolve', keys.did, '-n', node2);
    expect(resolved.didDocumentMetadata.method.published).toBe(true);
    expect(resolved.didDocument.service).toHaveLength(1);

    const again = await anchor('did', 'create', '-n', node1, '-k', 'alice.json');
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toMatch(/^anchor: the key file alice.json exists/);
  });

  it('updates the DID (keys rotate), then deactivates it', async () => {
    const updated = await anchor(
      'did',
      'update',
      '-k',
      'alice.json',
      '--add-key',
      'key-2',
      '--remove-service',
      'hub',
      '--wait',
    );
    expect(updated.code, updated.stderr).toBe(0);
    const keys = JSON.parse(await readFile(join(dir.path, 'alice.json'), 'utf8')) as {
      did: string;
      documentKeys: object;
      pending?: unknown;
    };
    expect(Object.keys(keys.documentKeys).sort()).toEqual(['key-1', 'key-2']);
    expect(keys.pending).toBeUndefined();
    const resolved = await json<{ didDocument: { verificationMethod: Array<{ id: string }>; service?: unknown[] } }>(
      'did',
      'resolve',
      keys.did,
      '-n',
      node2,
    );
    expect(resolved.didDocument.verificationMethod.map((key) => key.id.split('#')[1])).toEqual(['key-1', 'key-2']);
    expect(resolved.didDocument.service ?? []).toHaveLength(0);

    const second = await anchor('did', 'update', '-k', 'alice.json', '--remove-key', 'key-1', '--wait');
    expect(second.code, second.stderr).toBe(0);

    const deactivated = await anchor('did', 'deactivate', '-k', 'alice.json', '--wait');
    expect(deactivated.code, deactivated.stderr).toBe(0);
    const after = await anchor('did', 'update', '-k', 'alice.json', '--add-key', 'key-3');
    expect(after.code).toBe(1);
    expect(after.stderr.trim()).toMatch(/^anchor: .*deactivated/);
    // What is true of a deactivated DID: deactivated, final; not "published yes" beside "none published".
    const shown = await anchor('did', 'resolve', keys.did, '-n', node1);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/status\s+deactivated \(final/);
    expect(shown.stdout).not.toMatch(/published\s+yes|none published/);
  });

  it('validates the whole command line before doing anything: a usage error changes nothing', async () => {
    expect((await anchor('did', 'create', '-n', node1, '-k', 'carol.json', '--wait')).code).toBe(0);
    const before = await readFile(join(dir.path, 'carol.json'), 'utf8');
    const { did } = JSON.parse(before) as { did: string };
    const typo = await anchor('did', 'update', '-k', 'carol.json', '--add-key', 'key-2', '--wiat');
    expect([typo.code, typo.stderr.trim()]).toEqual([2, expect.stringMatching(/^anchor: Unknown argument: wiat/)]);
    expect(await readFile(join(dir.path, 'carol.json'), 'utf8')).toBe(before);
    const resolved = await json<{ didDocumentMetadata: { method: { publishedOperations: Array<{ type: string }> } } }>(
      'did',
      'resolve',
      did,
      '-n',
      node1,
    );
    expect(resolved.didDocumentMetadata.method.publishedOperations.map((op) => op.type)).toEqual(['create']);
    const createTypo = await anchor('did', 'create', '-n', node1, '-k', 'dave.json', '--wiat');
    expect(createTypo.code).toBe(2);
    await expect(stat(join(dir.path, 'dave.json'))).rejects.toThrow(/ENOENT/);
    // A URL without its scheme is a usage error with the URL it meant, before anything is read or sent.
    const schemeless = await anchor('did', 'update', '-k', 'carol.json', '--add-key', 'k', '-n', '127.0.0.1:8081');
    expect([schemeless.code, schemeless.stderr.trim()]).toEqual([
      2,
      'anchor: --node-url 127.0.0.1:8081 is not an http(s) URL: give its scheme, e.g. --node-url http://127.0.0.1:8081',
    ]);
    expect(await readFile(join(dir.path, 'carol.json'), 'utf8')).toBe(before);
  });

  it('keeps no key file of a create no node took, and sends a pending create again', async () => {
    const refused = await anchor('did', 'create', '-n', 'http://127.0.0.1:9', '-k', 'erin.json');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ECONNREFUSED.*no DID was created and erin.json was not kept/);
    await expect(stat(join(dir.path, 'erin.json'))).rejects.toThrow(/ENOENT/);
    expect((await anchor('did', 'create', '-n', node1, '-k', 'erin.json', '--wait')).code).toBe(0);

    // A node that may have taken it (a 5xx proves nothing): the keys stay, pending, and the same command
    // again sends the same create, to a node that takes it.
    const flaky = createServer((_req, res) => res.writeHead(503).end('{"message":"busy"}'));
    await new Promise<void>((done) => flaky.listen(0, '127.0.0.1', done));
    const flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    try {
      const lost = await anchor('did', 'create', '-n', flakyUrl, '-k', 'frank.json', '--anchor-origin', node1);
      expect(lost.code).toBe(1);
      expect(lost.stderr).toMatch(/the keys stay in frank.json, pending: run the same command again/);
    } finally {
      flaky.close();
    }
    const pending = JSON.parse(await readFile(join(dir.path, 'frank.json'), 'utf8')) as {
      did: string;
      pending?: { create?: unknown };
    };
    expect(pending.pending?.create).toBeDefined();
    const early = await anchor('did', 'update', '-k', 'frank.json', '--add-key', 'key-2');
    expect([early.code, early.stderr]).toEqual([1, expect.stringMatching(/no node has confirmed the create/)]);
    const again = await anchor('did', 'create', '-n', node1, '-k', 'frank.json', '--wait', '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/holds a create no node has confirmed yet: sending it again/);
    expect((JSON.parse(again.stdout) as { did: string }).did).toBe(pending.did);
    const settled = JSON.parse(await readFile(join(dir.path, 'frank.json'), 'utf8')) as { pending?: unknown };
    expect(settled.pending).toBeUndefined();
  });

  it('resolves an earlier version: --version-id, --version-time and a DID URL with ?versionId=', async () => {
    expect((await anchor('did', 'create', '-n', node1, '-k', 'gina.json', '--wait')).code).toBe(0);
    const { did } = JSON.parse(await readFile(join(dir.path, 'gina.json'), 'utf8')) as { did: string };
    type Resolved = {
      didDocument: { verificationMethod?: Array<{ id: string }> };
      didDocumentMetadata: { versionId: string };
    };
    const first = await json<Resolved>('did', 'resolve', did, '-n', node1);
    const created = new Date().toISOString();
    expect((await anchor('did', 'update', '-k', 'gina.json', '--add-key', 'key-2', '--wait')).code).toBe(0);
    const keysOf = (resolved: Resolved) =>
      (resolved.didDocument.verificationMethod ?? []).map((k) => k.id.split('#')[1]);
    expect(keysOf(await json<Resolved>('did', 'resolve', did, '-n', node1))).toEqual(['key-1', 'key-2']);
    const versionId = first.didDocumentMetadata.versionId;
    expect(keysOf(await json<Resolved>('did', 'resolve', did, '--version-id', versionId, '-n', node1))).toEqual([
      'key-1',
    ]);
    expect(keysOf(await json<Resolved>('did', 'resolve', `${did}?versionId=${versionId}`, '-n', node1))).toEqual([
      'key-1',
    ]);
    expect(keysOf(await json<Resolved>('did', 'resolve', did, '--version-time', created, '-n', node1))).toEqual([
      'key-1',
    ]);
    const conflict = await anchor(
      'did',
      'resolve',
      `${did}?versionId=${versionId}`,
      '--version-id',
      'other',
      '-n',
      node1,
    );
    expect([conflict.code, conflict.stderr]).toEqual([2, expect.stringMatching(/the DID URL says versionId=/)]);
  });

  it('recovers a DID with new keys', async () => {
    expect((await anchor('did', 'create', '-n', node1, '-k', 'bob.json', '--wait')).code).toBe(0);
    const before = JSON.parse(await readFile(join(dir.path, 'bob.json'), 'utf8')) as { recoveryKey: { d: string } };
    const recovered = await anchor('did', 'recover', '-k', 'bob.json', '--wait');
    expect(recovered.code, recovered.stderr).toBe(0);
    const after = JSON.parse(await readFile(join(dir.path, 'bob.json'), 'utf8')) as { recoveryKey: { d: string } };
    expect(after.recoveryKey.d).not.toBe(before.recoveryKey.d);
  });

  it('unfollows and follows again, withdraws and renews a witness invitation, sets the policy', async () => {
    expect((await anchor('unfollow', service2, '-n', node1)).code).toBe(0);
    await expect.poll(() => federation.admins[0]!.collection('following'), { timeout: 30_000 }).not.toContain(service2);
    const follow = await anchor('follow', service2, '-n', node1, '--wait');
    expect(follow.code, follow.stderr).toBe(0);
    expect(await federation.admins[0]!.collection('following')).toContain(service2);

    expect((await anchor('witness', 'uninvite', service2, '-n', node1)).code).toBe(0);
    await expect.poll(() => federation.admins[0]!.collection('witnesses'), { timeout: 30_000 }).not.toContain(service2);
    expect((await anchor('witness', 'invite', service2, '-n', node1, '--wait')).code).toBe(0);
    expect(await federation.admins[0]!.collection('witnesses')).toContain(service2);

    const policy = 'MinPercent(100,batch) AND MinPercent(50,system)';
    expect((await anchor('policy', 'set', policy, '-n', node1)).code).toBe(0);
    expect(await json<{ policy: string }>('policy', 'get', '-n', node1)).toEqual({ policy });
    const lists = await json<Array<{ type: string; url: string[] }>>('acceptlist', 'get', '-n', node1);
    expect(lists.find((list) => list.type === 'follow')?.url).toContain(service2);
  });

  it('adds credentials to the log, proves inclusion and consistency, and catches a tampered STH', async () => {
    await writeFile(join(dir.path, 'vc1.json'), JSON.stringify(credential(1)));
    const receipt = await json<{ timestamp: number; leafHash: string }>('vct', 'add', 'vc1.json', '--log-url', logUrl);
    expect((await anchor('vct', 'sth', '--log-url', logUrl, '--save', 'sth-1.json')).code).toBe(0);
    await writeFile(join(dir.path, 'vc2.json'), JSON.stringify(credential(2)));
    await json('vct', 'add', 'vc2.json', '--log-url', logUrl);

    // The log integrates on its interval: the proof is there once the entry is in a signed tree.
    await expect
      .poll(
        async () =>
          (
            await anchor(
              'vct',
              'proof',
              '--credential',
              'vc1.json',
              '--timestamp',
              String(receipt.timestamp),
              '--log-url',
              logUrl,
            )
          ).code,
        { timeout: 30_000, interval: 500 },
      )
      .toBe(0);
    const byHash = await json<{ leafIndex: number }>(
      'vct',
      'proof',
      '--leaf-hash',
      receipt.leafHash,
      '--log-url',
      logUrl,
    );
    expect(byHash.leafIndex).toBeGreaterThanOrEqual(0);

    const since = await json<{ consistentWith: number }>('vct', 'sth', '--log-url', logUrl, '--since', 'sth-1.json');
    expect(typeof since.consistentWith).toBe('number');
    expect((await anchor('vct', 'verify', 'sth-1.json', '--log-url', logUrl)).code).toBe(0);

    const saved = JSON.parse(await readFile(join(dir.path, 'sth-1.json'), 'utf8')) as {
      tree_size: number;
      sha256_root_hash: string;
    };
    await writeFile(
      join(dir.path, 'forged.json'),
      JSON.stringify({ ...saved, sha256_root_hash: Buffer.alloc(32, 3).toString('base64') }),
    );
    const forged = await anchor('vct', 'verify', 'forged.json', '--log-url', logUrl);
    expect(forged.code).toBe(1);
    expect(forged.stderr.trim()).toMatch(/^anchor: forged.json: the signed tree head's signature does not verify/);
    expect(forged.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('lists, stops and restarts the monitoring of the log, and finds no failed log', async () => {
    await expect
      .poll(
        async () =>
          (await json<{ active: Array<{ Log: string }> }>('logmonitor', 'get', '-n', node1)).active.map((l) => l.Log),
        {
          timeout: 30_000,
        },
      )
      .toContain(logUrl);
    expect((await anchor('logmonitor', 'deactivate', logUrl, '-n', node1)).code).toBe(0);
    const inactive = await json<{ inactive: Array<{ Log: string }> }>(
      'logmonitor',
      'get',
      '--status',
      'inactive',
      '-n',
      node1,
    );
    expect(inactive.inactive.map((l) => l.Log)).toContain(logUrl);
    expect((await anchor('logmonitor', 'activate', logUrl, '-n', node1)).code).toBe(0);
    const failed = await anchor('logmonitor', 'get', '--status', 'failed', '-n', node1);
    expect(failed.code, failed.stdout).toBe(0);
    expect(failed.stdout.trim()).toBe('no failed log');
  });

  it('shows the federation in one table', async () => {
    const status = await anchor('federation', 'status', '--nodes', node1, node2, '--log-url', logUrl);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/node\s+health\s+followers/);
    expect(status.stdout.match(/healthy/g)).toHaveLength(2);
    const down = await anchor('federation', 'status', '--nodes', node1, 'http://127.0.0.1:9', '--json');
    expect(down.code).toBe(1);
    expect((JSON.parse(down.stdout) as { nodes: Array<{ healthy: boolean }> }).nodes.map((n) => n.healthy)).toEqual([
      true,
      false,
    ]);
  });

  it('answers bad input with one line and a non-zero exit code', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['frobnicate'], 2, /Unknown argument: frobnicate/],
      [['did', 'create', '-n', node1], 2, /Missing required argument: key-file/],
      [['did', 'resolve', 'did:node:x'], 2, /--node-url is required/],
      [['policy', 'get', '-n', 'http://127.0.0.1:9'], 1, /ECONNREFUSED/],
      [['vct', 'proof', '--log-url', logUrl], 2, /give --leaf-hash/],
      [['did', 'update', '-k', 'missing.json', '--add-key', 'x'], 1, /cannot read the key file missing.json: ENOENT/],
    ];
    for (const [args, code, message] of cases) {
      const result = await anchor(...args);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    // With --json the error is JSON too: one line a script parses, with the exit code.
    for (const [args, code, message] of cases.slice(1)) {
      const result = await anchor(...args, '--json');
      expect(result.code, args.join(' ')).toBe(code);
      const error = JSON.parse(result.stderr) as { error: { message: string; exitCode: number } };
      expect(error.error.message, args.join(' ')).toMatch(message);
      expect(error.error.exitCode).toBe(code);
      expect(result.stdout).toBe('');
    }
  });

  it('creates a keystore and a key in the kms, signs, and verifies (exit 1 for a wrong message)', async () => {
    const kmsUrl = federation.layout.kms!.url;
    const keystore = await json<{ id: string; capability: string }>(
      'kms',
      'keystore',
      'create',
      '--controller',
      didKeyFromKeyPair(KeyPair.generate('Ed25519')),
      '--kms-url',
      kmsUrl,
    );
    expect(keystore.capability).toBeTruthy();
    // `=`: a capability is base64url and may begin with '-'.
    const access = ['--keystore', keystore.id, `--capability=${keystore.capability}`, '--kms-url', kmsUrl];
    const key = await json<{ keyID: string; publicKey: string }>(
      'kms',
      'key',
      'create',
      '--type',
      'ED25519',
      ...access,
    );
    const exported = await json<{ publicKey: string }>('kms', 'key', 'export', '--key', key.keyID, ...access);
    expect(exported.publicKey).toBe(key.publicKey);
    const { signature } = await json<{ signature: string }>(
      'kms',
      'sign',
      '--key',
      key.keyID,
      '--message',
      'hello',
      ...access,
    );
    expect(
      (await anchor('kms', 'verify', '--key', key.keyID, '--message', 'hello', '--signature', signature, ...access))
        .code,
    ).toBe(0);
    const wrong = await anchor(
      'kms',
      'verify',
      '--key',
      key.keyID,
      '--message',
      'hullo',
      '--signature',
      signature,
      ...access,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stdout.trim()).toBe('NOT verified');
    const otherKeystore = await anchor(
      'kms',
      'sign',
      '--key',
      key.keyID,
      '--message',
      'x',
      '--keystore',
      keystore.id,
      '--capability',
      'not-the-token',
      '--kms-url',
      kmsUrl,
    );
    expect(otherKeystore.code).toBe(1);
    expect(otherKeystore.stderr.trim().split('\n')).toHaveLength(1);
    // An id that starts with a dash reaches the kms as the id (not as short flags and an empty --keystore).
    const dashId = await anchor(
      'kms',
      'key',
      'export',
      '--key',
      '-k9',
      '--keystore',
      '-Xq3',
      '--capability',
      'c',
      '--kms-url',
      kmsUrl,
    );
    expect([dashId.code, dashId.stderr]).toEqual([1, expect.stringMatching(/not found/i)]);
  });

  it('issues, verifies and revokes a credential through the vcs', async () => {
    const port = await freePort();
    const vcsUrl = `http://127.0.0.1:${port}`;
    const vcs = await startProcess(serviceBin('@anchor/vcs'), {
      args: [
        '--host-url',
        `127.0.0.1:${port}`,
        '--data-dir',
        join(dir.path, 'vcs'),
        '--dev-mode',
        '--node-url',
        node1,
        '--vct-url',
        logUrl,
      ],
      readyUrl: `${vcsUrl}/healthcheck`,
      readyTimeoutMs: 60_000,
    });
    try {
      const client = new VcsClient({ url: vcsUrl });
      await client.createProfile({
        name: 'cli-issuer',
        uri: 'https://cli.example',
        signatureType: 'Ed25519Signature2020',
      });
      client.close();
      const unsigned = { ...credential(9), id: 'urn:uuid:cli-vc-1' };
      delete (unsigned as { issuer?: unknown }).issuer;
      await writeFile(join(dir.path, 'unsigned.json'), JSON.stringify(unsigned));
      const issued = await anchor(
        'vc',
        'issue',
        'unsigned.json',
        '--profile',
        'cli-issuer',
        '--vcs-url',
        vcsUrl,
        '--json',
      );
      expect(issued.code, issued.stderr).toBe(0);
      const answer = JSON.parse(issued.stdout) as {
        credential: { proof?: unknown };
        receipt: { id: string; timestamp: number; signature: string };
      };
      expect(answer.credential.proof).toBeDefined();
      expect(answer.receipt).toEqual({
        id: expect.any(String),
        timestamp: expect.any(Number),
        signature: expect.any(String),
      });
      await writeFile(join(dir.path, 'signed.json'), JSON.stringify(answer.credential));
      // Text: the credential alone on stdout (to pipe on), the receipt on stderr; --wait-logged until the log has it.
      await writeFile(join(dir.path, 'unsigned2.json'), JSON.stringify({ ...unsigned, id: 'urn:uuid:cli-vc-2' }));
      const logged = await anchor(
        'vc',
        'issue',
        'unsigned2.json',
        '--profile',
        'cli-issuer',
        '--vcs-url',
        vcsUrl,
        '--wait-logged',
      );
      expect(logged.code, logged.stderr).toBe(0);
      expect((JSON.parse(logged.stdout) as { id: string; proof?: unknown }).proof).toBeDefined();
      expect(logged.stderr).toMatch(/log receipt: timestamp \d+ \(20\d\d-.*\), id .*, in the log/);
      expect((await anchor('vc', 'verify', 'signed.json', '--vcs-url', vcsUrl)).code).toBe(0);
      expect(
        (await anchor('vc', 'revoke', 'urn:uuid:cli-vc-1', '--profile', 'cli-issuer', '--vcs-url', vcsUrl)).code,
      ).toBe(0);
      const revoked = await anchor('vc', 'verify', 'signed.json', '--vcs-url', vcsUrl);
      expect(revoked.code).toBe(1);
      expect(revoked.stdout).toMatch(/NOT verified: .*[Rr]evoked/);
    } finally {
      await vcs.stop();
    }
  });

  it("exports a node's history to a file, resumes an interrupted export, and builds a mirror from it", async () => {
    const file = join(dir.path, 'node1-export.jsonl');
    const whole = await anchor('export', '-n', node1, '--file', file, '--count', '2');
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).toMatch(/exported \d+ operations/);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const items = lines.flatMap((line) => (JSON.parse(line) as { items: Array<{ cursor: string }> }).items);
    expect(items.length).toBeGreaterThanOrEqual(4);
    // The file exists: going on needs --resume.
    const again = await anchor('export', '-n', node1, '--file', file);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--resume/);
    // Interrupted in the middle of writing its second page: --resume cuts the partial line and goes on.
    const cut = `${lines[0]}\n${lines[1]!.slice(0, 40)}`;
    await writeFile(file, cut);
    const resumed = await anchor('export', '-n', node1, '--file', file, '--count', '2', '--resume', '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming .* after 2 operations/);
    const after = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .flatMap((line) => (JSON.parse(line) as { items: Array<{ cursor: string }> }).items);
    expect(after.map((item) => item.cursor)).toEqual(items.map((item) => item.cursor));

    const port = await freePort();
    const mirrorUrl = `http://127.0.0.1:${port}`;
    const mirror = await startProcess(serviceBin('@anchor/node'), {
      args: [
        '--host-url',
        `127.0.0.1:${port}`,
        '--external-endpoint',
        mirrorUrl,
        '--data-dir',
        join(dir.path, 'mirror'),
        '--auth-tokens-def',
        '/sidetree/v1/import||admin',
        '--auth-tokens',
        'admin=mirror-secret',
      ],
      readyUrl: `${mirrorUrl}/healthcheck`,
    });
    try {
      const refused = await anchor('import', '-n', mirrorUrl, '--file', file, '--token', 'wrong');
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n').at(-1)).toMatch(/401/);
      const imported = await json<{ operations: number; imported: number }>(
        'import',
        '-n',
        mirrorUrl,
        '--file',
        file,
        '--token',
        'mirror-secret',
      );
      expect(imported.operations).toBe(items.length);
      const first = JSON.parse(lines[0]!) as { items: Array<{ suffix: string }> };
      const did = first.items[0]!.suffix;
      const here = await (await fetch(`${node1}/sidetree/v1/identifiers/did:node:uAAA:${did}`)).json();
      const there = await (await fetch(`${mirrorUrl}/sidetree/v1/identifiers/did:node:uAAA:${did}`)).json();
      expect((there as { didDocument: unknown }).didDocument).toEqual((here as { didDocument: unknown }).didDocument);
    } finally {
      await mirror.stop();
    }
  }, 120_000);

  it('refuses a wrong token with one line', async () => {
    const port = await freePort();
    const log = await startProcess(serviceBin('@anchor/vct-log'), {
      args: [
        '--host-url',
        `127.0.0.1:${port}`,
        '--data-dir',
        join(dir.path, 'guarded-log'),
        '--api-write-token',
        'right',
        '--api-read-token',
        'right',
      ],
      readyUrl: `http://127.0.0.1:${port}/healthcheck`,
    });
    try {
      await writeFile(join(dir.path, 'vc3.json'), JSON.stringify(credential(3)));
      const wrong = await anchor(
        'vct',
        'add',
        'vc3.json',
        '--log-url',
        `http://127.0.0.1:${port}/main`,
        '--token',
        'wrong',
      );
      expect(wrong.code).toBe(1);
      expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
      expect(wrong.stderr).toMatch(/401|403|unauthori[sz]ed|forbidden/i);
      const right = await anchor(
        'vct',
        'add',
        'vc3.json',
        '--log-url',
        `http://127.0.0.1:${port}/main`,
        '--token',
        'right',
      );
      expect(right.code, right.stderr).toBe(0);
    } finally {
      await log.stop();
    }
  });
});

describe('shell completion', () => {
  it('prints a bash and a zsh script, and completes commands from the table', async () => {
    const bash = await runProcess(BIN, { args: ['completion'], env: { SHELL: '/bin/bash' } });
    expect(bash.stdout).toContain('complete -o bashdefault -o default -F _anchor_yargs_completions anchor');
    const zsh = await runProcess(BIN, { args: ['completion'], env: { SHELL: '/bin/zsh' } });
    expect(zsh.stdout).toContain('#compdef anchor');
    const words = await runProcess(BIN, { args: ['--get-yargs-completions', 'vct', ''] });
    expect(words.stdout.split('\n').filter(Boolean)).toEqual(expect.arrayContaining(['add', 'sth', 'proof', 'verify']));
  });
});

describe('docs/cli.md', () => {
  it('is what the command table renders (npm run docs -w @anchor/cli rewrites it)', async () => {
    const committed = await readFile(join(ROOT, 'docs', 'cli.md'), 'utf8');
    expect(committed).toBe(renderCliDocs(COMMANDS, GROUPS, GLOBAL_OPTIONS));
  });
});
