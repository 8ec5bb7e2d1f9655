/**
 * `--tls-cacerts` between processes: a kms served over https under an operator's private CA, and a vct-log
 * signing with a key in it (the HTTP thread and the canonicalisation worker threads each reach the kms). With
 * the CA the log starts and signs add-vc answers; without it, it refuses to start, naming the certificate.
 */
import { KmsClient } from '@anchor/common/clients';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { serviceBin } from '@anchor/dev-env';
import { makePrivateCa, type PrivateCa } from '@anchor/testing/private-ca';
import { freePort, makeTempDir, startProcess, stopAllProcesses, type TempDir } from '@anchor/testing/process';
import { addVcSignatureVerifies, anchorCredential, call } from '@anchor/vct-log/testing';
import type { AddVcResponse } from '@anchor/common/vct';
import { JRD_PROPERTIES } from '@anchor/common/webfinger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: TempDir;
let pki: PrivateCa;
let kmsUrl: string;
let keystore: { id: string; capability: string };

beforeAll(async () => {
  dir = await makeTempDir('outbound-tls-');
  pki = makePrivateCa(dir.path);
  const port = await freePort();
  kmsUrl = `https://127.0.0.1:${port}`;
  await startProcess(serviceBin('@anchor/kms'), {
    name: 'kms',
    args: [
      '--host-url',
      `127.0.0.1:${port}`,
      '--data-dir',
      `${dir.path}/kms`,
      '--dev-mode',
      '--tls-serve-cert',
      pki.certFile,
      '--tls-serve-key',
      pki.keyFile,
    ],
    readyLine: /kms started/,
  });
  const client = new KmsClient({ url: kmsUrl, tls: { ca: [pki.ca] } });
  try {
    const created = await client.createKeystore({ controller: didKeyFromKeyPair(KeyPair.generate('Ed25519')) });
    keystore = { id: created.id, capability: created.capability as string };
  } finally {
    client.close();
  }
}, 60_000);

afterAll(async () => {
  await stopAllProcesses();
  await dir.remove();
});

const logArgs = (port: number, name: string): string[] => [
  '--host-url',
  `127.0.0.1:${port}`,
  '--data-dir',
  `${dir.path}/${name}`,
  '--kms-url',
  kmsUrl,
  '--kms-keystore',
  keystore.id,
  // `=`: a capability is base64url and may begin with '-'.
  `--kms-capability=${keystore.capability}`,
  '--canonicalize-workers',
  '1',
];

describe('a vct-log signing through a kms served under a private CA', () => {
  it('signs add-vc answers in its worker threads with --tls-cacerts', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await startProcess(serviceBin('@anchor/vct-log'), {
      name: 'vct-log',
      args: [...logArgs(port, 'log-trusting'), '--tls-cacerts', pki.caFile],
      env: { VCT_LOG_LEVEL: 'warning' },
      readyUrl: `${url}/healthcheck`,
      readyStatus: (status) => status === 200,
    });
    const health = await call<{ kmsStatus: string }>(`${url}/healthcheck`);
    expect(health.body.kmsStatus).toBe('success');
    const webfinger = await call<{ properties: Record<string, string> }>(
      `${url}/.well-known/webfinger?resource=${encodeURIComponent(`${url}/main`)}`,
    );
    const publicKey = Buffer.from(webfinger.body.properties[JRD_PROPERTIES.publicKey] as string, 'base64');
    for (const n of [1, 2, 3]) {
      const credential = anchorCredential(`tls-${n}`);
      const reply = await call<AddVcResponse>(`${url}/main/v1/add-vc`, { json: credential });
      expect(reply.status).toBe(200);
      expect(await addVcSignatureVerifies(reply.body, credential, publicKey)).toBe(true);
    }
  }, 60_000);

  it('refuses to start without it, naming the certificate problem', async () => {
    const port = await freePort();
    const started = await startProcess(serviceBin('@anchor/vct-log'), {
      name: 'vct-log-untrusting',
      args: logArgs(port, 'log-untrusting'),
      readyUrl: `http://127.0.0.1:${port}/healthcheck`,
      readyStatus: (status) => status === 200,
      readyTimeoutMs: 30_000,
    }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(started).toBeInstanceOf(Error);
    expect(started?.message).toMatch(/certificate/i);
  }, 60_000);
});
