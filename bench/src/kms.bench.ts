/**
 * kms under load, as deployed: the built service runs as its own process (LMDB data directory, dev-mode master
 * key, BBS worker threads) and this process drives it over loopback HTTP with autocannon, each request carrying
 * the keystore capability as its bearer token.
 *
 *   1. Ed25519 sign of a 32-byte message: 16 keep-alive connections, 15 s after a 3 s warm-up.
 *   2. AES-256-GCM encrypt of 1 KB: the same.
 *   3. BBS sign (IETF draft, BLS12-381-SHA-256) of 10 messages of 32 bytes: 8 connections, 10 s.
 *
 * Targets (2 cores, the load generator included): Ed25519 sign >= 4,000 req/s with p99 <= 10 ms, AES-256-GCM
 * encrypt of 1 KB >= 4,000 req/s, BBS sign of 10 messages >= 100/s (AWS KMS's default quota for Ed25519 signing
 * is 300 req/s per account: the figure to beat by an order of magnitude).
 *
 *   cd /work/main && npx tsc -b services/kms bench && node bench/dist/kms.bench.js
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { base64UrlPaddedEncode as b64 } from '@anchor/common/encoding';
import { serviceBin } from '@anchor/dev-env';
import { freePort, makeTempDir, startProcess, stopAllProcesses } from '@anchor/testing/process';
import autocannon from 'autocannon';
import { atLeast, atMost, report, summary } from './lib/report.js';
import { postJson } from './lib/post-json.js';

const SECTION = 'kms';
const MAIN_JS = serviceBin('@anchor/kms');

const dir = await makeTempDir('kms-bench-');
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;

/** The service's CPU seconds so far (all its threads), from its own /metrics. */
async function cpuSeconds(): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return Number(/^process_cpu_seconds_total (\S+)$/m.exec(text)?.[1]);
}

/**
 * One load run; `cpuMicros` is the service's CPU per answered request, which says what a core given to the
 * service alone would sustain whatever else the machine is running.
 */
async function load(url: string, token: string, body: string, connections: number, durationS: number) {
  const cpuBefore = await cpuSeconds();
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: durationS,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    requests: [{ method: 'POST', body }],
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) console.log(`${url}: ${failures} failures`);
  const cpuMicros = (((await cpuSeconds()) - cpuBefore) * 1e6) / result['2xx'];
  return { perSecond: result['2xx'] / result.duration, p99: result.latency.p99, p50: result.latency.p50, cpuMicros };
}

try {
  const service = await startProcess(MAIN_JS, {
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, '--dev-mode', '--log-level', 'error'],
    readyUrl: `${origin}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
    name: 'kms',
  });
  console.log(
    `service: ${MAIN_JS} (LMDB in ${dir.path}); load from this process; load average ${loadavg()[0]?.toFixed(1)}`,
  );
  const ks = await postJson<{ location: string; capability: string }>(`${origin}/v1/keystores`, {
    controller: 'did:example:bench',
  });
  const key = async (keyType: string): Promise<string> =>
    (await postJson<{ location: string }>(`${ks.location}/keys`, { keyType }, ks.capability)).location;

  const ed25519 = await key('ED25519');
  const signBody = JSON.stringify({ message: b64(randomBytes(32)) });
  await load(`${ed25519}/sign`, ks.capability, signBody, 16, 3);
  const sign = await load(`${ed25519}/sign`, ks.capability, signBody, 16, 15);
  report(SECTION, 'Ed25519 sign (16 connections, 15 s)', sign.perSecond, 'req/s', atLeast(4_000));
  report(SECTION, 'Ed25519 sign latency p50', sign.p50, 'ms');
  report(SECTION, 'Ed25519 sign latency p99', sign.p99, 'ms', atMost(10));
  report(SECTION, 'Ed25519 sign: service CPU per request', sign.cpuMicros, 'µs');

  const aes = await key('AES256GCM');
  const encryptBody = JSON.stringify({ message: b64(randomBytes(1024)) });
  await load(`${aes}/encrypt`, ks.capability, encryptBody, 16, 3);
  const encrypt = await load(`${aes}/encrypt`, ks.capability, encryptBody, 16, 15);
  report(SECTION, 'AES-256-GCM encrypt of 1 KB (16 connections, 15 s)', encrypt.perSecond, 'req/s', atLeast(4_000));
  report(SECTION, 'AES-256-GCM encrypt latency p99', encrypt.p99, 'ms');
  report(SECTION, 'AES-256-GCM encrypt: service CPU per request', encrypt.cpuMicros, 'µs');

  try {
    const bls = await key('BLS12381G2');
    const messages = Array.from({ length: 10 }, () => b64(randomBytes(32)));
    const bbsBody = JSON.stringify({ messages });
    await load(`${bls}/signmulti`, ks.capability, bbsBody, 8, 2);
    const bbs = await load(`${bls}/signmulti`, ks.capability, bbsBody, 8, 10);
    report(SECTION, 'BBS sign of 10 messages (8 connections, 10 s)', bbs.perSecond, 'sig/s', atLeast(100));
    report(SECTION, 'BBS sign latency p99', bbs.p99, 'ms');
    report(SECTION, 'BBS sign: service CPU per signature (worker threads included)', bbs.cpuMicros / 1000, 'ms');
  } catch (error) {
    console.log(`BBS not measured: ${(error as Error).message}`);
  }
  await service.stop();
  summary();
} finally {
  await stopAllProcesses();
  await dir.remove();
}
