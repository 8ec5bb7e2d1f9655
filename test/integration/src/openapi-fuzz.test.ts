import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyPair } from '@anchor/common/crypto';
import { serviceBin } from '@anchor/dev-env';
import { addPublicKeys, createRequest, documentKey, serializeRequest } from '@anchor/sidetree';
import {
  freePort,
  makeTempDir,
  startProcess,
  waitFor,
  type ServiceProcess,
  type TempDir,
} from '@anchor/testing/process';
import { anchorCredential, call, leafHashFor } from '@anchor/vct-log/testing';
import { describeRun, fuzzOpenApi, schemathesisBinary, type FuzzRun } from './schemathesis.test-helpers.js';

/**
 * Schemathesis against each service's own OpenAPI document: every documented operation gets generated
 * requests, valid and not, including garbage in the `Signature` header the document declares. No answer may
 * be a 5xx, and every status, Content-Type and body must be one the route table documents; nothing may be
 * logged at ERROR (an unexpected error's stack trace). Each service runs as its built bin on loopback with a
 * temp data directory and a bearer token for every route, so requests reach the handlers instead of the
 * token check. Seed and example count are fixed (FUZZ_SEED, FUZZ_MAX_EXAMPLES override them): the same requests
 * every run, under a minute in all.
 */
// A deeper hunt than CI's: FUZZ_SEED=7 FUZZ_MAX_EXAMPLES=300 npx vitest run src/openapi-fuzz.test.ts
const SEED = Number(process.env['FUZZ_SEED'] ?? 21);
const MAX_EXAMPLES = Number(process.env['FUZZ_MAX_EXAMPLES'] ?? 30);
/** The node's run takes about half a second per example per operation set; deeper hunts get the time they need. */
const FUZZ_TIMEOUT_MS = Math.max(180_000, MAX_EXAMPLES * 1_500);
const TOKEN = randomUUID();
/** The export stream (SSE) stays open by design; services/node/src/export/export.test.ts covers its bad input. */
const NODE_STREAMS = ['/sidetree/v1/export/stream'];
const AUTHORIZATION = { Authorization: `Bearer ${TOKEN}` };

/** One credential in the log's `main` alias, integrated, so proofs and entries exist to ask for. */
async function logOneCredential(url: string): Promise<{ leafHash: string }> {
  const credential = anchorCredential('fuzz');
  const added = await call<{ timestamp: number }>(`${url}/main/v1/add-vc`, {
    json: credential,
    headers: AUTHORIZATION,
  });
  expect(added.status, added.text).toBe(200);
  const sth = async () =>
    (await call<{ tree_size: number }>(`${url}/main/v1/get-sth`, { headers: AUTHORIZATION })).body;
  await waitFor(async () => (await sth()).tree_size >= 1);
  return { leafHash: (await leafHashFor(credential, added.body.timestamp)).toString('base64') };
}

/** A DID created on the node, so resolution, did:web and WebFinger requests can name one that exists. */
async function createDid(url: string): Promise<{ did: string; longFormDid: string; didSuffix: string }> {
  const created = createRequest({
    recoveryKey: KeyPair.generate('Ed25519'),
    updateKey: KeyPair.generate('Ed25519'),
    anchorOrigin: url,
    patches: [addPublicKeys(documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
  });
  const response = await fetch(`${url}/sidetree/v1/operations`, {
    method: 'POST',
    headers: { ...AUTHORIZATION, 'content-type': 'application/json' },
    body: serializeRequest(created.request),
  });
  expect(response.status, await response.text()).toBe(200);
  return created;
}

/** Loaded into each fuzzed service: generated requests name arbitrary hosts, and nothing may leave loopback. */
const LOOPBACK_ONLY = fileURLToPath(new URL('./loopback-only.mjs', import.meta.url));

const started: Array<{ process: ServiceProcess; dir: TempDir }> = [];

async function startService(
  packageName: string,
  flags: (port: number, dataDir: string) => string[],
  env: Record<string, string>,
): Promise<{ url: string; process: ServiceProcess }> {
  const dir = await makeTempDir('anchor-fuzz-');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startProcess(serviceBin(packageName), {
    name: packageName,
    args: flags(port, dir.path),
    env: { ...env, NODE_OPTIONS: `--import=${LOOPBACK_ONLY}` },
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  started.push({ process: child, dir });
  return { url, process: child };
}

function errorLines(child: ServiceProcess): string[] {
  return child
    .output()
    .split('\n')
    .filter((line) => / ERROR /.test(line) || /"level":"error"/.test(line));
}

function expectClean(service: string, run: FuzzRun, child: ServiceProcess, excluded = 0): void {
  console.log(describeRun(service, run));
  const failures = run.report.failures.map(
    (failure) => `${failure.code} ${failure.title} (${failure.count}): ${failure.operations.join(', ')}`,
  );
  expect(run.report.errors, run.output).toEqual([]);
  expect(run.report.operations.tested, run.output).toBe(run.report.operations.total - excluded);
  expect(run.serverErrors, run.output).toBe(0);
  expect(failures, run.output).toEqual([]);
  expect(run.report.exit_code, run.output).toBe(0);
  expect(errorLines(child)).toEqual([]);
}

describe('schemathesis against /openapi.json', () => {
  let binary: string;

  beforeAll(async () => {
    binary = await schemathesisBinary();
  });
  afterAll(async () => {
    await Promise.all(started.map(({ process }) => process.stop()));
    await Promise.all(started.map(({ dir }) => dir.remove()));
  });

  it('the fuzzed services reach nothing beyond loopback: other hosts and addresses fail before connecting', async () => {
    // Addresses of the documentation ranges; inside a fresh network namespace where one can be made, so even a
    // broken guard sends nothing.
    const probe = `
      const outcome = (request) => request.then(() => 'connected', (error) => (error.cause ?? error).message);
      console.log(JSON.stringify(await Promise.all([
        outcome(fetch('https://203.0.113.7/')),
        outcome(fetch('https://example.org/')),
        outcome(fetch('http://[2001:db8::7]/')),
        outcome(import('node:dns').then((dns) => dns.promises.lookup('example.org'))),
        outcome(fetch('http://127.0.0.1:9/')),
      ])));`;
    const args = [process.execPath, `--import=${LOOPBACK_ONLY}`, '--input-type=module', '-e', probe];
    const run = (command: string, argv: string[]) =>
      new Promise<{ error: Error | null; stdout: string }>((resolve) =>
        execFile(command, argv, { timeout: 30_000 }, (error, stdout) => resolve({ error, stdout })),
      );
    let result = await run('unshare', ['--net', ...args]);
    if (result.error) result = await run(args[0] as string, args.slice(1));
    expect(result.error).toBeNull();
    const outcomes = JSON.parse(result.stdout) as string[];
    expect(outcomes.slice(0, 4)).toEqual([
      'getaddrinfo ENOTFOUND 203.0.113.7 (fuzzing: loopback only)',
      'getaddrinfo ENOTFOUND example.org (fuzzing: loopback only)',
      'getaddrinfo ENOTFOUND 2001:db8::7 (fuzzing: loopback only)',
      'getaddrinfo ENOTFOUND example.org (fuzzing: loopback only)',
    ]);
    // Loopback is left alone: nothing listens on port 9 (or, in the namespace, loopback is down).
    expect(outcomes[4]).not.toMatch(/loopback only/);
  });

  it(
    'the vct-log answers every generated request without a 5xx, as documented',
    async () => {
      const log = await startService(
        '@anchor/vct-log',
        (port, dataDir) => [
          '--host-url',
          `127.0.0.1:${port}`,
          '--data-dir',
          dataDir,
          '--api-read-token',
          TOKEN,
          '--api-write-token',
          TOKEN,
        ],
        {
          VCT_LOG_LEVEL: 'warning',
        },
      );
      const logged = await logOneCredential(log.url);
      const run = await fuzzOpenApi(binary, log.url, {
        seed: SEED,
        maxExamples: MAX_EXAMPLES,
        headers: AUTHORIZATION,
        knownValues: {
          'path.alias': ['main'],
          'query.start': ['0'],
          'query.end': ['0'],
          'query.first': ['0', '1'],
          'query.second': ['1'],
          'query.tree_size': ['1'],
          'query.leaf_index': ['0'],
          'query.hash': [logged.leafHash],
        },
      });
      expect(run.report.operations.total).toBeGreaterThanOrEqual(10);
      expectClean('vct-log', run, log.process);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the node answers every generated request without a 5xx, as documented',
    async () => {
      const node = await startService(
        '@anchor/node',
        (port, dataDir) => [
          '--host-url',
          `127.0.0.1:${port}`,
          '--external-endpoint',
          `http://127.0.0.1:${port}`,
          '--data-dir',
          dataDir,
          // The first matching rule applies: the health check stays open for the readiness probe.
          '--auth-tokens-def',
          '^/healthcheck$||',
          '--auth-tokens-def',
          '.*|fuzz|fuzz',
          '--auth-tokens',
          `fuzz=${TOKEN}`,
        ],
        { ANCHOR_LOG_LEVEL: 'warning' },
      );
      const { did, longFormDid, didSuffix } = await createDid(node.url);
      const run = await fuzzOpenApi(binary, node.url, {
        seed: SEED,
        maxExamples: MAX_EXAMPLES,
        headers: AUTHORIZATION,
        knownValues: {
          'path.did': [did, longFormDid],
          'path.id': [didSuffix, 'main-key'],
          'query.resource': [did, `${node.url}/services/node`],
          'query.page': ['true', 'false'],
          'query.page-num': ['0', '1'],
          'query.type': ['follow', 'invite-witness'],
        },
        excludePaths: NODE_STREAMS,
      });
      expect(run.report.operations.total).toBeGreaterThanOrEqual(30);
      expectClean('node', run, node.process, NODE_STREAMS.length);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the kms answers every generated request without a 5xx, as documented',
    async () => {
      const kms = await startService(
        '@anchor/kms',
        (port, dataDir) => [
          '--host-url',
          `127.0.0.1:${port}`,
          '--data-dir',
          dataDir,
          '--dev-mode',
          '--bbs-workers',
          '1',
        ],
        { KMS_LOG_LEVEL: 'warning' },
      );
      // A keystore whose capability every request carries, with a key of each kind the operations take.
      const post = async (url: string, json: unknown, token?: string) =>
        (
          await call<Record<string, string>>(url, {
            json,
            ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
          })
        ).body;
      const keystore = await post(`${kms.url}/v1/keystores`, { controller: 'did:example:fuzz' });
      const keyIds: string[] = [];
      for (const keyType of ['ED25519', 'AES256GCM', 'HMACSHA256Tag256', 'NISTP256ECDHKW', 'BLS12381G2'])
        keyIds.push((await post(`${keystore.location}/keys`, { keyType }, keystore.capability)).keyID as string);
      const run = await fuzzOpenApi(binary, kms.url, {
        seed: SEED,
        maxExamples: MAX_EXAMPLES,
        headers: { Authorization: `Bearer ${keystore.capability}` },
        knownValues: {
          'path.keystoreId': [keystore.id as string],
          'path.keyId': keyIds,
          'query.keyVersion': ['1'],
        },
      });
      expect(run.report.operations.total).toBeGreaterThanOrEqual(25);
      expectClean('kms', run, kms.process);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the vcs answers every generated request without a 5xx, as documented',
    async () => {
      const vcs = await startService(
        '@anchor/vcs',
        (port, dataDir) => [
          '--host-url',
          `127.0.0.1:${port}`,
          '--data-dir',
          dataDir,
          '--api-token',
          TOKEN,
          '--vc-api-profile',
          'fuzz',
        ],
        { VC_REST_LOG_LEVEL: 'warning' },
      );
      // An issuer and a holder profile and one issued credential, so requests can name things that exist.
      const profile = { name: 'fuzz', uri: 'https://fuzz.example', signatureType: 'Ed25519Signature2020' };
      const post = (path: string, json: unknown) =>
        call<Record<string, unknown>>(`${vcs.url}${path}`, { json, headers: AUTHORIZATION });
      expect((await post('/profile', profile)).status).toBe(201);
      expect((await post('/holder/profile', { name: 'fuzz', signatureType: 'Ed25519Signature2020' })).status).toBe(201);
      const issued = await post('/fuzz/credentials/issueCredential', {
        credential: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          type: ['VerifiableCredential'],
          issuanceDate: '2024-01-01T00:00:00Z',
          credentialSubject: { id: 'did:example:fuzz' },
        },
      });
      expect(issued.status).toBe(201);
      const status = issued.body.credentialStatus as { statusListCredential: string };
      const run = await fuzzOpenApi(binary, vcs.url, {
        seed: SEED,
        maxExamples: MAX_EXAMPLES,
        headers: AUTHORIZATION,
        knownValues: {
          'path.profile': ['fuzz'],
          'path.id': ['fuzz'],
          'path.listId': [status.statusListCredential.split('/').at(-1) as string],
        },
      });
      expect(run.report.operations.total).toBeGreaterThanOrEqual(20);
      expectClean('vcs', run, vcs.process);
    },
    FUZZ_TIMEOUT_MS,
  );
});
