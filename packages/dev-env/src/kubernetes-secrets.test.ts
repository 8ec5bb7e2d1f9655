import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inClusterApi } from './kubernetes-secrets.js';

/**
 * The in-cluster client against a stand-in API server over TLS (a private CA, as a cluster's), which keeps
 * Secrets in a map and checks what a real API server checks of these calls: the bearer token, the path, the
 * body's kind and base64 data, and a conflict on a second create.
 */
describe('inClusterApi', () => {
  let dir: TempDir;
  let server: Server;
  let url: string;
  const secrets = new Map<string, { data: Record<string, string>; labels: Record<string, string> }>();

  beforeAll(async () => {
    dir = await makeTempDir('k8s-api-');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir.path, 'key.pem'),
        '-out',
        join(dir.path, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    server = createServer(
      { key: readFileSync(join(dir.path, 'key.pem')), cert: readFileSync(join(dir.path, 'cert.pem')) },
      (req, res) => {
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        };
        if (req.headers.authorization !== 'Bearer sa-token') return answer(401, { message: 'Unauthorized' });
        const base = '/api/v1/namespaces/anchor/secrets';
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          if (req.method === 'GET' && req.url?.startsWith(`${base}/`)) {
            const found = secrets.get(decodeURIComponent(req.url.slice(base.length + 1)));
            return found ? answer(200, { kind: 'Secret', data: found.data }) : answer(404, { message: 'not found' });
          }
          if (req.method === 'POST' && req.url === base) {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              kind: string;
              metadata: { name: string; labels: Record<string, string> };
              data: Record<string, string>;
            };
            if (body.kind !== 'Secret') return answer(400, { message: 'not a Secret' });
            if (secrets.has(body.metadata.name)) return answer(409, { message: 'already exists' });
            secrets.set(body.metadata.name, { data: body.data, labels: body.metadata.labels });
            return answer(201, body);
          }
          return answer(404, { message: 'no route' });
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await dir.remove();
  });

  const api = (token = 'sa-token') =>
    inClusterApi({ apiUrl: url, token, ca: readFileSync(join(dir.path, 'cert.pem')), namespace: 'anchor' });

  it('reads a missing secret as undefined, creates it with base64 data, then reads it back decoded', async () => {
    expect(await api().getSecret('kms-node1')).toBeUndefined();
    await api().createSecret('kms-node1', { keystore: 'ks-1', capability: 'cap-1' }, { app: 'kms-init' });
    expect(secrets.get('kms-node1')).toEqual({
      data: { keystore: Buffer.from('ks-1').toString('base64'), capability: Buffer.from('cap-1').toString('base64') },
      labels: { app: 'kms-init' },
    });
    expect(await api().getSecret('kms-node1')).toEqual({ keystore: 'ks-1', capability: 'cap-1' });
  });

  it('never overwrites: a second create is a conflict error', async () => {
    await expect(api().createSecret('kms-node1', { keystore: 'other', capability: 'x' })).rejects.toThrow(
      /creating secret kms-node1: the Kubernetes API answered 409: already exists/,
    );
    expect(await api().getSecret('kms-node1')).toEqual({ keystore: 'ks-1', capability: 'cap-1' });
  });

  it('reports a refused token, and an API server whose certificate the CA does not vouch for', async () => {
    await expect(api('wrong').getSecret('kms-node1')).rejects.toThrow(/answered 401: Unauthorized/);
    const untrusted = inClusterApi({ apiUrl: url, token: 'sa-token', ca: '', namespace: 'anchor' });
    await expect(untrusted.getSecret('kms-node1')).rejects.toThrow(/certificate/i);
  });
});
