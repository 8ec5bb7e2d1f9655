import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import {
  builtServiceMain,
  freePort,
  loopbackService,
  makeTempDir,
  runProcess,
  startProcess,
} from '@anchor/testing/process';
import { processTestScope } from '@anchor/testing/process-scope';
import { undocumentedOptions } from '@anchor/common/config';
import type { AddVcResponse, SignedTreeHead } from '@anchor/common/vct';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { VCT_LOG_CONFIG } from '../src/config.js';
import { addVcSignatureVerifies, anchorCredential, call, sthSignatureVerifies } from '../src/testing/index.js';

const main = builtServiceMain('vct-log');

describe('vct-log binary', () => {
  const { tempDir } = processTestScope();

  it('with only --host-url and --data-dir serves a readable, writable "main" log without tokens, keeping its key and tree across restarts', async () => {
    const dir = await tempDir('vct-bare-');
    const { url, start } = await loopbackService(main, ['--data-dir', dir.path]);

    let service = await start();
    expect(existsSync(join(dir.path, 'vct-log-key.pem'))).toBe(true);
    const webfinger = async () =>
      (
        await call<{ properties: Record<string, string> }>(
          `${url}/.well-known/webfinger?resource=${encodeURIComponent(`${url}/main`)}`,
        )
      ).body;
    const publicKey = Buffer.from((await webfinger()).properties['https://trustbloc.dev/ns/public-key']!, 'base64');

    const credential = anchorCredential('bare');
    const added = await call<AddVcResponse>(`${url}/main/v1/add-vc`, { json: credential });
    expect(added.status).toBe(200);
    expect(await addVcSignatureVerifies(added.body, credential, publicKey)).toBe(true);
    let sth: SignedTreeHead | undefined;
    for (let i = 0; i < 50 && (sth?.tree_size ?? 0) < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      sth = (await call<SignedTreeHead>(`${url}/main/v1/get-sth`)).body;
    }
    expect(sth?.tree_size).toBe(1);
    expect(sthSignatureVerifies(sth!, publicKey)).toBe(true);

    expect((await service.stop()).code).toBe(0);
    service = await start();
    expect(Buffer.from((await webfinger()).properties['https://trustbloc.dev/ns/public-key']!, 'base64')).toEqual(
      publicKey,
    );
    expect((await call<SignedTreeHead>(`${url}/main/v1/get-sth`)).body).toEqual(sth);
    const again = await call<AddVcResponse>(`${url}/main/v1/add-vc`, { json: credential });
    expect(again.body.timestamp).toBe(added.body.timestamp);
    expect((await service.stop()).code).toBe(0);
  });

  it('documents every flag under --help', async () => {
    const result = await runProcess(main, { args: ['--help'] });
    expect(result.code).toBe(0);
    for (const option of Object.values(VCT_LOG_CONFIG.options)) {
      expect(result.stdout).toContain(`--${option.flag}`);
      for (const env of option.env) expect(result.stdout).toContain(env);
    }
  });

  it('lists every flag and environment variable in the README', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    expect(undocumentedOptions(VCT_LOG_CONFIG, readme)).toEqual([]);
  });

  it('exits 2 with one clear line on bad configuration', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--logs', 'main:x'], {}, /option --logs \(env VCT_LOGS\): invalid value "main:x".*r, w or rw/],
      [['--logs', 'a:rw,a:r'], {}, /alias "a" is given twice/],
      [['--issuers', 'other@did:key:z1'], {}, /names alias "other", which --logs does not define/],
      [['--database-type', 'mongodb'], {}, /--database-url .* required with --database-type mongodb/],
      [['--database-type', 'postgres'], {}, /must be one of mem, lmdb, mongodb/],
      [['--tls-cacerts', '/nonexistent/ca.pem'], {}, /--tls-cacerts: cannot read \/nonexistent\/ca\.pem/],
      [['--kms-type', 'web'], {}, /--kms-type web needs --kms-url/],
      [['--kms-url', 'http://127.0.0.1:1'], {}, /--kms-url needs --kms-keystore/],
      [['--kms-url', 'http://127.0.0.1:1/v1/keystores/ks1'], {}, /--kms-url needs --kms-capability/],
      [['--host-url', 'nonsense'], {}, /--host-url/],
      [[], { VCT_INTEGRATION_INTERVAL: '5ms' }, /--integration-interval .*at least 10ms/],
      [['--tls-serve-cert', '/x.pem'], {}, /give both/],
      [['--no-such-flag'], {}, /unknown option --no-such-flag/],
      [
        ['--logs', 'a:rw,b:r', '--tlog-origin', 'example.com/log'],
        {},
        /--tlog-origin "example.com\/log" names one log, but --logs serves 2/,
      ],
      [['--tlog-origin', 'example.com/a+b'], {}, /--tlog-origin "example.com\/a\+b" is no note key name/],
      [['--tiles-dir', '/dev/null/tiles'], {}, /--tiles-dir: cannot write to \/dev\/null\/tiles: ENOTDIR/],
    ];
    for (const [args, env, message] of cases) {
      const result = await runProcess(main, { args, env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    // A process start per case, on a machine other tests share.
  }, 90_000);

  it('exits 1 when the key on disk does not match --key-type', async () => {
    const dir = await tempDir('vct-keytype-');
    const { port, start } = await loopbackService(main, ['--data-dir', dir.path]);
    await (await start()).stop();
    const result = await runProcess(main, {
      args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, '--key-type', 'P-256'],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is Ed25519, but --key-type asks for P-256/);
  });

  it("takes --contexts-file and POST /ld/context on its worker threads; trustbloc/vct's BDD credential and its contexts file work as they are", async () => {
    const dir = await tempDir('vct-contexts-');
    const fixture = (name: string) => readFile(new URL(`./fixtures/original-bdd/${name}`, import.meta.url), 'utf8');
    const file = join(dir.path, 'contexts.json');
    // trustbloc/vct's file holds the W3C examples context, bundled here: it is passed over, not a reason to stop.
    const fromFile = {
      url: 'https://example.org/bdd/file/v1',
      content: { '@context': { fileNote: 'https://example.org/bdd#fileNote' } },
    };
    const fromApi = {
      url: 'https://example.org/bdd/api/v1',
      content: { '@context': { apiNote: 'https://example.org/bdd#apiNote' } },
    };
    await writeFile(
      file,
      JSON.stringify({ documents: [JSON.parse(await fixture('ld-example-contexts.json')), fromFile] }),
    );
    const bdd = JSON.parse(await fixture('verifiable_credentials_no_proof.json')) as {
      '@context': string[];
      credentialSubject: Record<string, unknown>;
    };
    const extended = {
      ...bdd,
      '@context': [...bdd['@context'], fromFile.url, fromApi.url],
      credentialSubject: { ...bdd.credentialSubject, fileNote: 'from the file', apiNote: 'from the API' },
    };
    const { url, start } = await loopbackService(main, ['--data-dir', dir.path, '--contexts-file', file], {
      env: { VCT_CANONICALIZE_WORKERS: '2' },
    });
    const service = await start();
    expect(service.output()).toMatch(/contexts in --contexts-file are bundled/);
    // Both worker threads must have every change: several requests in flight reach both.
    const addMany = (credential: object, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          call<{ message?: string }>(`${url}/main/v1/add-vc`, {
            json: { ...credential, id: `urn:uuid:vc-${i}-${Math.random()}` },
          }),
        ),
      );
    for (const accepted of await addMany(bdd, 2)) expect(accepted.status, accepted.text).toBe(200);
    for (const refused of await addMany(extended, 6)) {
      expect(refused.status).toBe(400);
      // The file's context is known: the first unknown one is the API's.
      expect(refused.body.message).toContain(`unknown JSON-LD context ${fromApi.url}`);
    }
    expect(
      (
        await call(`${url}/ld/context`, {
          body: JSON.stringify(fromApi),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);
    for (const accepted of await addMany(extended, 6)) expect(accepted.status, accepted.text).toBe(200);
    expect((await call(`${url}/ld/context?url=${encodeURIComponent(fromApi.url)}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    for (const refused of await addMany(extended, 6)) expect(refused.status).toBe(400);

    const broken = join(dir.path, 'broken.json');
    await writeFile(broken, '[{"url": "https://example.org/c"}]');
    const result = await runProcess(main, {
      args: [
        '--host-url',
        `127.0.0.1:${await freePort()}`,
        '--data-dir',
        join(dir.path, 'other'),
        '--contexts-file',
        broken,
      ],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `--contexts-file ${broken}: documents[0] (https://example.org/c): "content" must be`,
    );
  });
});

describe('vct-log binary configured through the environment, serving HTTPS with a P-256 key', () => {
  processTestScope();

  const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

  it.skipIf(!hasOpenssl)(
    'signs with ECDSAP256IEEEP1363, needs its tokens, and serves metrics on the separate listener',
    async () => {
      const dir = await makeTempDir('vct-tls-');
      try {
        const cert = join(dir.path, 'cert.pem');
        const key = join(dir.path, 'key.pem');
        const made = spawnSync('openssl', [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ]);
        expect(made.status, made.stderr.toString()).toBe(0);
        const ca = await readFile(cert);
        const [port, metricsPort] = [await freePort(), await freePort()];
        const origin = `https://127.0.0.1:${port}`;
        const service = await startProcess(main, {
          args: ['--tls-serve-cert', cert, '--tls-serve-key', key],
          env: {
            VCT_HOST_URL: `127.0.0.1:${port}`,
            VCT_DATA_DIR: join(dir.path, 'data'),
            VCT_KEY_TYPE: 'P-256',
            VCT_LOGS: 'maple2021:rw,maple2022:r',
            VCT_ISSUERS: 'maple2021@did:web:node1.example.com',
            VCT_BASE_URL: 'https://vct.example.com',
            VCT_API_READ_TOKEN: 'tk1',
            VCT_API_WRITE_TOKEN: 'tk2',
            VCT_METRICS_HOST: `127.0.0.1:${metricsPort}`,
          },
          readyUrl: `${origin}/healthcheck`,
          readyStatus: (status) => status === 200,
        });
        const get = (url: string, headers: Record<string, string> = {}) => httpsCall(url, { ca, headers });
        const jrd = JSON.parse(
          (
            await get(
              `${origin}/.well-known/webfinger?resource=${encodeURIComponent('https://vct.example.com/maple2021')}`,
            )
          ).body,
        ) as { properties: Record<string, string> };
        const publicKey = Buffer.from(jrd.properties['https://trustbloc.dev/ns/public-key']!, 'base64');
        expect(publicKey).toHaveLength(65);

        const credential = anchorCredential('tls');
        expect(
          (await httpsCall(`${origin}/maple2021/v1/add-vc`, { ca, method: 'POST', body: JSON.stringify(credential) }))
            .status,
        ).toBe(401);
        const added = await httpsCall(`${origin}/maple2021/v1/add-vc`, {
          ca,
          method: 'POST',
          body: JSON.stringify(credential),
          headers: { authorization: 'Bearer tk2' },
        });
        expect(added.status).toBe(200);
        const reply = JSON.parse(added.body) as AddVcResponse;
        expect(JSON.parse(Buffer.from(reply.signature, 'base64').toString()).algorithm).toEqual({
          signature: 'ECDSA',
          type: 'ECDSAP256IEEEP1363',
        });
        expect(await addVcSignatureVerifies(reply, credential, publicKey)).toBe(true);
        expect(
          (
            await httpsCall(`${origin}/maple2021/v1/add-vc`, {
              ca,
              method: 'POST',
              body: JSON.stringify(anchorCredential('x', 'did:web:other.example.com')),
              headers: { authorization: 'Bearer tk2' },
            })
          ).status,
        ).toBe(400);
        expect((await get(`${origin}/maple2022/v1/get-issuers`, { authorization: 'Bearer tk1' })).body).toBe('null\n');
        expect((await get(`${origin}/maple2021/get-issuers`, { authorization: 'Bearer tk1' })).body).toBe(
          '["did:web:node1.example.com"]\n',
        );

        const metrics = await call(`http://127.0.0.1:${metricsPort}/metrics`);
        expect(metrics.status).toBe(200);
        expect(metrics.text).toMatch(/^vct_add_vc\{alias="maple2021"\} 1$/m);
        expect((await get(`${origin}/metrics`)).status).toBe(404);
        expect((await service.stop()).code).toBe(0);
      } finally {
        await dir.remove();
      }
    },
  );
});

function httpsCall(
  url: string,
  options: { ca: Buffer; method?: string; body?: string; headers?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: options.method ?? 'GET',
        ca: options.ca,
        headers: { ...(options.headers ?? {}), ...(options.body ? { 'content-type': 'application/json' } : {}) },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
