import { readFile } from 'node:fs/promises';
import { undocumentedOptions } from '@anchor/common/config';
import { builtServiceMain, loopbackService, runProcess } from '@anchor/testing/process';
import { processTestScope } from '@anchor/testing/process-scope';
import { describe, expect, it } from 'vitest';
import { VCS_CONFIG } from '../src/config.js';

const main = builtServiceMain('vcs');

async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

describe('vcs binary', () => {
  const { tempDir } = processTestScope();

  it('with --host-url, --data-dir and --dev-mode serves a combined vcs that issues, verifies and revokes, and keeps it all across restarts', async () => {
    const dir = await tempDir('vcs-bare-');
    const { url, start } = await loopbackService(main, ['--data-dir', dir.path, '--dev-mode']);
    let service = await start();
    const profile = await post(`${url}/profile`, {
      name: 'bare',
      uri: 'https://example.com',
      signatureType: 'Ed25519Signature2020',
    });
    expect(profile.status).toBe(201);
    expect(profile.body.did).toMatch(/^did:key:/);
    const credential = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      id: 'urn:uuid:6a9d1c2e-0000-4000-8000-000000000001',
      type: ['VerifiableCredential'],
      issuanceDate: '2024-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:alice' },
    };
    const issued = await post(`${url}/bare/credentials/issueCredential`, { credential });
    expect(issued.status).toBe(201);
    const verify = () =>
      post(`${url}/verifier/credentials`, {
        verifiableCredential: issued.body,
        options: { checks: ['proof', 'status'] },
      });
    expect((await verify()).status).toBe(200);
    expect((await service.stop()).code).toBe(0);

    service = await start();
    expect((await verify()).status).toBe(200);
    const revoked = await post(`${url}/bare/credentials/status`, {
      credentialId: credential.id,
      credentialStatus: { type: 'StatusList2021Entry', status: 'true' },
    });
    expect(revoked.status).toBe(200);
    expect((await verify()).body.checks).toEqual([{ check: 'status', error: 'Revoked' }]);
    expect((await service.stop()).code).toBe(0);
  });

  it('documents every flag under --help and in the README', async () => {
    const result = await runProcess(main, { args: ['--help'] });
    expect(result.code).toBe(0);
    for (const option of Object.values(VCS_CONFIG.options)) {
      expect(result.stdout).toContain(`--${option.flag}`);
      for (const env of option.env) expect(result.stdout).toContain(env);
    }
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    expect(undocumentedOptions(VCS_CONFIG, readme)).toEqual([]);
  });

  it('exits 2 with one clear line on bad configuration', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [[], {}, /--host-url/],
      [['--host-url', '127.0.0.1:1', '--mode', 'governance'], {}, /--mode .*issuer, verifier, holder, combined/],
      [['--host-url', '127.0.0.1:1', '--database-type', 'couchdb'], {}, /must be one of mem, lmdb, mongodb/],
      [['--host-url', '127.0.0.1:1', '--database-type', 'mongodb'], {}, /--database-url .*required/],
      [['--host-url', '127.0.0.1:1', '--kms-keystore', 'k1'], {}, /--kms-keystore and --kms-capability/],
      [['--host-url', '127.0.0.1:1'], { VC_REST_MAX_RETRIES: 'many' }, /--max-retries/],
      [['--host-url', '127.0.0.1:1'], { BACKOFF_FACTOR: '0.5' }, /--backoff-factor/],
      [['--host-url', '127.0.0.1:1', '--tls-serve-cert', '/x.pem'], {}, /give both/],
      [['--host-url', '127.0.0.1:1', '--node-url', 'ftp://x'], {}, /--node-url/],
    ];
    for (const [args, env, message] of cases) {
      const result = await runProcess(main, { args, env });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });
});
