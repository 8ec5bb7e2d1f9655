import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didWebFetch, resolveDidWeb } from '@anchor/common/did';
import { createHttpClient, readCaCertificates, withBundledRoots } from '@anchor/common/http-client';
import { createGuardedFetchJson } from '@anchor/common/httpsig';
import { rootCertificates } from 'node:tls';
import { makeTempDir } from '../process/index.js';
import { makePrivateCa, type PrivateCa } from './index.js';

/**
 * Every outbound client of @anchor/common reaches an https server whose certificate a private CA signed
 * once it is given that CA (`--tls-cacerts`), and refuses it otherwise.
 */
let pki: PrivateCa;
let server: https.Server;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = (await makeTempDir('private-ca-')).path;
  pki = makePrivateCa(dir);
  server = https.createServer({ cert: readFileSync(pki.certFile), key: readFileSync(pki.keyFile) }, (req, res) => {
    res.setHeader('content-type', 'application/json');
    const port = (server.address() as AddressInfo).port;
    if (req.url === '/.well-known/did.json') res.end(JSON.stringify({ id: `did:web:127.0.0.1%3A${port}` }));
    else res.end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('a private CA', () => {
  it('the http client reaches the server with the CA, and not without it', async () => {
    const trusting = createHttpClient({ tls: { ca: readCaCertificates([pki.caFile]) } });
    const plain = createHttpClient();
    try {
      expect((await trusting.get(`${base}/x`)).data).toEqual({ path: '/x' });
      await expect(plain.get(`${base}/x`)).rejects.toThrow(/certificate/i);
    } finally {
      trusting.close();
      plain.close();
    }
  });

  it('keeps the bundled roots trusted beside the private CA', () => {
    const trusted = withBundledRoots(readCaCertificates([pki.caFile]));
    expect(trusted).toHaveLength(rootCertificates.length + 1);
    expect(trusted.slice(0, rootCertificates.length)).toEqual([...rootCertificates]);
  });

  it('the guarded key fetch reaches it with the CA', async () => {
    const fetchJson = createGuardedFetchJson({ policy: { allowAddresses: ['loopback'] }, ca: [pki.ca] });
    const signal = AbortSignal.timeout(5_000);
    expect(await fetchJson(`${base}/keys/main-key`, { accept: 'application/json', signal })).toEqual({
      path: '/keys/main-key',
    });
    const untrusting = createGuardedFetchJson({ policy: { allowAddresses: ['loopback'] } });
    await expect(untrusting(`${base}/keys/main-key`, { accept: 'application/json', signal })).rejects.toThrow(
      /certificate/i,
    );
  });

  it('did:web documents are fetched over https with the CA', async () => {
    const did = `did:web:${new URL(base).host.replace(':', '%3A')}`;
    const document = await resolveDidWeb(did, { http: 'never', fetch: didWebFetch({ tls: { ca: [pki.ca] } }) });
    expect(document.id).toBe(did);
    await expect(resolveDidWeb(did, { http: 'never' })).rejects.toThrow();
  });

  it('a --tls-cacerts file that is missing or holds no certificate is a start-up error naming it', () => {
    const notPem = join(dir, 'not-a-cert.pem');
    writeFileSync(notPem, 'hello');
    expect(() => readCaCertificates([join(dir, 'missing.pem')])).toThrow(/--tls-cacerts: cannot read .*missing\.pem/);
    expect(() => readCaCertificates([notPem])).toThrow(/--tls-cacerts: .*not-a-cert\.pem holds no PEM certificate/);
  });
});
