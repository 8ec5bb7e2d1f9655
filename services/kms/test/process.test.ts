import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { undocumentedOptions } from '@anchor/common/config';
import { builtServiceMain, freePort, loopbackService, runProcess, startProcess } from '@anchor/testing/process';
import { processTestScope } from '@anchor/testing/process-scope';
import { describe, expect, it } from 'vitest';
import { KMS_CONFIG } from '../src/config.js';
import { b64, call, Controller } from './kms.test-helpers.js';

const main = builtServiceMain('kms');

describe('kms binary', () => {
  const { tempDir } = processTestScope();

  it('with --host-url, --data-dir and --dev-mode serves a kms whose keys survive a restart, under a master key it made', async () => {
    const dir = await tempDir('kms-bare-');
    const { url, start } = await loopbackService(main, ['--data-dir', dir.path, '--dev-mode']);
    let service = await start();
    const masterKeyFile = join(dir.path, 'kms-master-key');
    expect(existsSync(masterKeyFile)).toBe(true);
    expect(statSync(masterKeyFile).mode & 0o777).toBe(0o600);
    expect(service.output()).toMatch(/dev mode: created a master key file/);
    const health = await call(`${url}/healthcheck`);
    expect(health.body).toMatchObject({ status: 'OK', dbStatus: 'success', currentTime: expect.any(String) });

    const alice = new Controller();
    const ks = (
      await call<{ location: string; capability: string }>(`${url}/v1/keystores`, { json: { controller: alice.did } })
    ).body;
    const key = (
      await call<{ location: string }>(`${ks.location}/keys`, { json: { keyType: 'ED25519' }, token: ks.capability })
    ).body;
    const signature = (
      await call<{ signature: string }>(`${key.location}/sign`, { json: { message: b64('m') }, token: ks.capability })
    ).body.signature;
    const masterKey = await readFile(masterKeyFile);
    // The master key never reaches the log (the configuration line masks secrets, the file is only named).
    expect(service.output()).not.toContain(masterKey.toString().trim());

    expect((await service.stop()).code).toBe(0);
    service = await start();
    expect(service.output()).not.toMatch(/created a master key/);
    const verified = await call(`${key.location}/verify`, {
      json: { message: b64('m'), signature },
      token: ks.capability,
    });
    expect(verified.body).toEqual({ verified: true });
    expect((await alice.call(`${key.location}/sign`, { message: b64('m') })).status).toBe(200);
    // BBS runs on the worker threads of the built service.
    const bls = (
      await call<{ location: string }>(`${ks.location}/keys`, { json: { keyType: 'BLS12381G2' }, token: ks.capability })
    ).body;
    const messages = Array.from({ length: 10 }, (_, i) => b64(`m${i}`));
    const bbs = await call<{ signature: string }>(`${bls.location}/signmulti`, {
      json: { messages },
      token: ks.capability,
    });
    expect(bbs.status, JSON.stringify(bbs.body)).toBe(200);
    const bbsVerified = await call(`${bls.location}/verifymulti`, {
      json: { messages, signature: bbs.body.signature },
      token: ks.capability,
    });
    expect(bbsVerified.body).toEqual({ verified: true });
    // A batch of signatures is spread over the signing worker threads of the built service.
    const batch = await call<{ signatures: string[] }>(`${key.location}/signbatch`, {
      json: { messages: [...messages, b64('m')] },
      token: ks.capability,
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.signatures).toHaveLength(11);
    // Ed25519 is deterministic: the batch's last signature is the one /sign made before the restart.
    expect(batch.body.signatures.at(-1)).toBe(signature);
    expect((await service.stop()).code).toBe(0);
  });

  it('refuses to start with a master key other than the one its database was sealed under (exit 1)', async () => {
    const dir = await tempDir('kms-wrong-key-');
    const port = await freePort();
    const keyFile = join(dir.path, 'master.key');
    await writeFile(keyFile, randomBytes(32).toString('base64'));
    const args = [
      '--host-url',
      `127.0.0.1:${port}`,
      '--data-dir',
      join(dir.path, 'data'),
      '--secret-lock-key-path',
      keyFile,
    ];
    const first = await startProcess(main, { args, readyUrl: `http://127.0.0.1:${port}/healthcheck` });
    expect((await first.stop()).code).toBe(0);

    await writeFile(keyFile, randomBytes(32));
    const wrong = await runProcess(main, { args });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr + wrong.stdout).toMatch(/the master key is not the one this database's keys are sealed under/);

    const viaEnv = await runProcess(main, {
      args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', join(dir.path, 'data')],
      env: { KMS_SECRET_LOCK_KEY: randomBytes(32).toString('base64') },
    });
    expect(viaEnv.code).toBe(1);
    expect(viaEnv.stderr + viaEnv.stdout).toMatch(/master key is not the one/);
  });

  it('exits 2 with one clear line without a master key or on bad configuration', async () => {
    const dir = await tempDir('kms-config-');
    const badKey = join(dir.path, 'short.key');
    await writeFile(badKey, 'c2hvcnQ=');
    const cases: Array<[string[], Record<string, string>, RegExp, number]> = [
      [[], {}, /--secret-lock-key-path .* a master key is required/, 2],
      [['--secret-lock-key-path', '/x', '--secret-lock-key', 'AAAA'], {}, /give the master key once/, 2],
      [['--database-type', 'mongodb', '--dev-mode'], {}, /--database-url .* required with --database-type mongodb/, 2],
      [['--host-url', 'nonsense', '--dev-mode'], {}, /--host-url/, 2],
      [['--no-such-flag'], {}, /unknown option --no-such-flag/, 2],
      [
        ['--dev-mode', '--tls-cacerts', '/nonexistent/ca.pem'],
        {},
        /--tls-cacerts: cannot read \/nonexistent\/ca\.pem/,
        2,
      ],
    ];
    for (const [args, env, message, code] of cases) {
      const result = await runProcess(main, { args, env });
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    const port = await freePort();
    const short = await runProcess(main, {
      args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, '--secret-lock-key-path', badKey],
    });
    expect(short.code).toBe(1);
    expect(short.stderr + short.stdout).toMatch(/does not hold a master key: 32 bytes/);
    const missing = await runProcess(main, {
      args: [
        '--host-url',
        `127.0.0.1:${port}`,
        '--data-dir',
        dir.path,
        '--secret-lock-key-path',
        join(dir.path, 'nope'),
      ],
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr + missing.stdout).toMatch(/cannot read the master key file .*ENOENT/);
  });

  it('documents every flag under --help and in the README', async () => {
    const result = await runProcess(main, { args: ['--help'] });
    expect(result.code).toBe(0);
    for (const option of Object.values(KMS_CONFIG.options)) {
      expect(result.stdout).toContain(`--${option.flag}`);
      for (const env of option.env) expect(result.stdout).toContain(env);
    }
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    expect(undocumentedOptions(KMS_CONFIG, readme)).toEqual([]);
  });
});
