/**
 * The Digital Bazaar pair: @digitalbazaar/vc issuing and verifying the bench credential in-process
 * (bench/peers/vc-peer.mjs, one core, its bundled document loader), against our own signing code in-process
 * (our-vc-process.ts, the same loop, the same credential and suite) and against our vcs over HTTP (the built
 * kms and vcs as processes, the vcs signing through the kms, 8 keep-alive connections from autocannon as the vcs
 * bench drives it; verify checks the proof only, as the peer's does, and the profiles issue no status entry,
 * which the peer has none of). Suites: Ed25519Signature2020 (VC 1.1) and eddsa-rdfc-2022 (VC 2.0).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess } from '@anchor/testing/process';
import autocannon from 'autocannon';
import { atLeast } from '../lib/report.js';
import { postJson } from '../lib/post-json.js';
import { pair, skipped } from './pairs.js';
import { ensure, PEERS_DIR } from './scripts.js';

const OURS_JS = fileURLToPath(new URL('./our-vc-process.js', import.meta.url));
const SUITES = ['Ed25519Signature2020', 'eddsa-rdfc-2022'] as const;
type SuiteName = (typeof SUITES)[number];
const IN_PROCESS_MS = 5_000;
const CONNECTIONS = 8;
const HTTP_S = 10;

interface InProcess {
  issuePerSecond: number;
  verifyPerSecond: number;
  issueCpuMicros: number;
  verifyCpuMicros: number;
}

function inProcess(file: string, suite: SuiteName): Promise<InProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, suite, String(IN_PROCESS_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as InProcess)
        : reject(new Error(`${file} ${suite} exited with ${code}: ${err.trim().split('\n').slice(-3).join(' ')}`)),
    );
  });
}

async function load(url: string, body: string): Promise<{ perSecond: number; p99: number }> {
  const run = (duration: number) =>
    autocannon({
      url,
      method: 'POST',
      connections: CONNECTIONS,
      duration,
      headers: { 'content-type': 'application/json' },
      requests: [{ method: 'POST', body }],
    });
  await run(2);
  const result = await run(HTTP_S);
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${url}: ${failures} of ${result['2xx'] + failures} requests failed`);
  return { perSecond: result['2xx'] / result.duration, p99: result.latency.p99 };
}

const fixture = (): { '@context': unknown[] } & Record<string, unknown> =>
  JSON.parse(readFileSync(join(PEERS_DIR, 'credential.json'), 'utf8')) as { '@context': unknown[] };

/** The credential as the vcs is asked to issue it (the profile's DID becomes the issuer). */
function vcsCredential(suite: SuiteName): Record<string, unknown> {
  const base = fixture();
  return suite === 'Ed25519Signature2020'
    ? {
        ...base,
        '@context': ['https://www.w3.org/2018/credentials/v1', ...base['@context']],
        issuanceDate: '2024-03-01T19:23:24Z',
      }
    : {
        ...base,
        '@context': ['https://www.w3.org/ns/credentials/v2', ...base['@context']],
        validFrom: '2024-03-01T19:23:24Z',
      };
}

async function overHttp(dataDir: string): Promise<Map<SuiteName, { issue: number; verify: number }>> {
  const [kmsPort, vcsPort] = [await freePort(), await freePort()];
  const kms = `http://127.0.0.1:${kmsPort}`;
  const vcs = `http://127.0.0.1:${vcsPort}`;
  const kmsProcess = await startProcess(serviceBin('@anchor/kms'), {
    name: 'kms',
    args: [
      '--host-url',
      `127.0.0.1:${kmsPort}`,
      '--data-dir',
      join(dataDir, 'kms'),
      '--dev-mode',
      '--log-level',
      'error',
    ],
    readyUrl: `${kms}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
  });
  const vcsProcess = await startProcess(serviceBin('@anchor/vcs'), {
    name: 'vcs',
    args: [
      '--host-url',
      `127.0.0.1:${vcsPort}`,
      '--data-dir',
      join(dataDir, 'vcs'),
      '--kms-url',
      kms,
      '--log-level',
      'error',
    ],
    readyUrl: `${vcs}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
  });
  try {
    const figures = new Map<SuiteName, { issue: number; verify: number }>();
    for (const suite of SUITES) {
      const name = `peers-${suite.toLowerCase().replace(/[^a-z0-9]/g, '')}`;
      await postJson(`${vcs}/profile`, {
        name,
        uri: 'https://bench.example',
        signatureType: suite,
        disableVCStatus: true,
      });
      const issueUrl = `${vcs}/${name}/credentials/issueCredential`;
      const issueBody = { credential: vcsCredential(suite) };
      const signed = await postJson(issueUrl, issueBody);
      const issued = await load(issueUrl, JSON.stringify(issueBody));
      const verified = await load(
        `${vcs}/verifier/credentials`,
        JSON.stringify({ verifiableCredential: signed, options: { checks: ['proof'] } }),
      );
      console.log(
        `  our vcs over HTTP, ${suite}: issue ${Math.round(issued.perSecond)}/s (p99 ${issued.p99} ms), verify ${Math.round(verified.perSecond)}/s (p99 ${verified.p99} ms)`,
      );
      figures.set(suite, { issue: issued.perSecond, verify: verified.perSecond });
    }
    return figures;
  } finally {
    await vcsProcess.stop();
    await kmsProcess.stop();
  }
}

export async function vcPairs(dataDir: string): Promise<void> {
  const peer = new Map<SuiteName, InProcess>();
  try {
    ensure('ensure-peers.sh');
    for (const suite of SUITES) peer.set(suite, await inProcess(join(PEERS_DIR, 'vc-peer.mjs'), suite));
  } catch (error) {
    for (const suite of SUITES) skipped(`Digital Bazaar: ${suite}`, (error as Error).message);
    return;
  }
  for (const suite of SUITES) {
    const theirs = peer.get(suite) as InProcess;
    const ours = await inProcess(OURS_JS, suite);
    console.log(
      `  ${suite}, CPU per call in-process: ours issue ${ours.issueCpuMicros.toFixed(0)} µs, verify ${ours.verifyCpuMicros.toFixed(0)} µs; ` +
        `Digital Bazaar issue ${theirs.issueCpuMicros.toFixed(0)} µs, verify ${theirs.verifyCpuMicros.toFixed(0)} µs`,
    );
    pair(`VC issue in-process, ${suite}: ours / Digital Bazaar`, 'VCs/s', ours.issuePerSecond, theirs.issuePerSecond);
    pair(
      `VC verify in-process, ${suite}: ours / Digital Bazaar`,
      'VCs/s',
      ours.verifyPerSecond,
      theirs.verifyPerSecond,
      {
        target: atLeast(1),
      },
    );
  }
  const http = await overHttp(dataDir);
  for (const suite of SUITES) {
    const theirs = peer.get(suite) as InProcess;
    const ours = http.get(suite) as { issue: number; verify: number };
    pair(
      `VC issue, our vcs over HTTP (kms signs) / DB in-process, ${suite}`,
      'VCs/s',
      ours.issue,
      theirs.issuePerSecond,
    );
    pair(`VC verify, our vcs over HTTP / DB in-process, ${suite}`, 'VCs/s', ours.verify, theirs.verifyPerSecond);
  }
}
