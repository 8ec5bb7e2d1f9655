/**
 * The credential service under load, as deployed: the built kms and vcs run as their own processes (LMDB data
 * directories; the vcs signs through the kms) and this process drives the vcs over loopback HTTP with autocannon.
 *
 *   1. issue: `POST /{profile}/credentials/issueCredential` of a VC 1.1 credential without an id (the service
 *      gives each one a urn:uuid, a StatusList2021 entry, an Ed25519Signature2020 proof made by the kms, and its
 *      index record): 8 keep-alive connections, 15 s after a 3 s warm-up.
 *   2. verify: `POST /verifier/credentials` of one issued credential, checks proof and status: the same.
 *
 * Targets (2 cores shared by the load generator, the vcs and the kms): issue >= 500/s and verify >= 500/s, each
 * with p99 <= 50 ms (Digital Bazaar's in-process issue and verify run here at about 615 and 733 per second).
 *
 *   cd /work/main && npx turbo run build --filter=@anchor/bench... && npm run bench -- vcs
 */
import { serviceBin } from '@anchor/dev-env';
import { freePort, makeTempDir, startProcess, stopAllProcesses } from '@anchor/testing/process';
import autocannon from 'autocannon';
import { atLeast, atMost, report, summary } from './lib/report.js';
import { postJson } from './lib/post-json.js';

const SECTION = 'vcs';
const CONNECTIONS = 8;

const [kmsDir, vcsDir] = await Promise.all([makeTempDir('vcs-bench-kms-'), makeTempDir('vcs-bench-vcs-')]);

async function load(url: string, body: string, durationS: number) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: durationS,
    headers: { 'content-type': 'application/json' },
    requests: [{ method: 'POST', body }],
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) console.log(`${url}: ${failures} failures`);
  return { perSecond: result['2xx'] / result.duration, p99: result.latency.p99, p50: result.latency.p50 };
}

try {
  const [kmsPort, vcsPort] = [await freePort(), await freePort()];
  const kms = `http://127.0.0.1:${kmsPort}`;
  const vcs = `http://127.0.0.1:${vcsPort}`;
  await startProcess(serviceBin('@anchor/kms'), {
    args: [
      '--host-url',
      `127.0.0.1:${kmsPort}`,
      '--data-dir',
      kmsDir.path,
      '--dev-mode',
      '--log-level',
      'error',
      '--bbs-workers',
      '0',
    ],
    readyUrl: `${kms}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
    name: 'kms',
  });
  await startProcess(serviceBin('@anchor/vcs'), {
    args: ['--host-url', `127.0.0.1:${vcsPort}`, '--data-dir', vcsDir.path, '--kms-url', kms, '--log-level', 'error'],
    readyUrl: `${vcs}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
    name: 'vcs',
  });
  console.log(`services: vcs ${vcs} signing through kms ${kms} (LMDB each); load from this process`);
  await postJson(`${vcs}/profile`, {
    name: 'bench',
    uri: 'https://bench.example',
    signatureType: 'Ed25519Signature2020',
  });
  const credential = {
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    type: ['VerifiableCredential'],
    issuanceDate: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder' },
  };
  const issueUrl = `${vcs}/bench/credentials/issueCredential`;
  const issueBody = JSON.stringify({ credential });
  await load(issueUrl, issueBody, 3);
  const issue = await load(issueUrl, issueBody, 15);
  report(
    SECTION,
    `issue, Ed25519Signature2020 by the kms (${CONNECTIONS} conn, 15 s)`,
    issue.perSecond,
    'req/s',
    atLeast(500),
  );
  report(SECTION, 'issue latency p50', issue.p50, 'ms');
  report(SECTION, 'issue latency p99', issue.p99, 'ms', atMost(50));

  const signed = await postJson(issueUrl, { credential });
  const verifyBody = JSON.stringify({ verifiableCredential: signed, options: { checks: ['proof', 'status'] } });
  const verifyUrl = `${vcs}/verifier/credentials`;
  await load(verifyUrl, verifyBody, 3);
  const verify = await load(verifyUrl, verifyBody, 15);
  report(SECTION, `verify, proof and status (${CONNECTIONS} conn, 15 s)`, verify.perSecond, 'req/s', atLeast(500));
  report(SECTION, 'verify latency p50', verify.p50, 'ms');
  report(SECTION, 'verify latency p99', verify.p99, 'ms', atMost(50));
  summary();
} finally {
  await stopAllProcesses();
  await Promise.all([kmsDir.remove(), vcsDir.remove()]);
}
