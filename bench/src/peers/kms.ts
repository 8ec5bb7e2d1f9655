/**
 * Our kms against the machine: Ed25519 signs per second through the kms over loopback HTTP (the built service
 * as its own process, 16 keep-alive connections from autocannon, as the kms bench drives it) against
 * node:crypto signing the same 32-byte message in a loop, one process per core, on the same cores: the
 * physical limit here (the mean of a loop just before the kms runs and one just after). The ratio is the share
 * of that limit the service delivers.
 *
 * Two figures, both printed as ratios: one sign per request (`/sign`, trustbloc/kms's route) and a batch of
 * BATCH messages per request (`/signbatch`). The target is judged on the batch: one sign per request is bound
 * by the HTTP exchange, not by the kms, and the bench measures that bound beside it (a bare node:http server
 * answering the same bytes, same autocannon: its requests per second are the most signs any service answering
 * one sign per request gets of these cores, well under half the signing limit here).
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { base64UrlPaddedEncode as b64 } from '@anchor/common/encoding';
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess } from '@anchor/testing/process';
import autocannon from 'autocannon';
import { atLeast } from '../lib/report.js';
import { postJson } from '../lib/post-json.js';
import { pair } from './pairs.js';

const SIGN_LOOP_JS = fileURLToPath(new URL('./sign-loop-process.js', import.meta.url));
const BARE_HTTP_JS = fileURLToPath(new URL('./bare-http-process.js', import.meta.url));
const CONNECTIONS = 16;
const DURATION_S = 10;
/** Messages per `/signbatch` request: an issuer's batch of credentials. */
const BATCH = 100;

function signLoop(ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SIGN_LOOP_JS, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`sign loop: ${code}`))));
  });
}

interface Load {
  url: string;
  body: string;
  token?: string;
}

/** Warm-up, then DURATION_S of as fast as it answers: requests per second answered 2xx, and the latencies. */
async function drive({ url, body, token }: Load, what: string): Promise<{ rate: number; p50: number; p99: number }> {
  const load = (duration: number) =>
    autocannon({
      url,
      method: 'POST',
      connections: CONNECTIONS,
      duration,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      requests: [{ method: 'POST', body }],
    });
  await load(3);
  const result = await load(DURATION_S);
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) console.log(`  ${what}: ${failures} failures`);
  return { rate: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99 };
}

/** Requests per second a bare node:http server answers (the kms's answer size) under the same autocannon. */
async function bareHttpRate(body: string, answerBytes: number): Promise<number> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await startProcess(BARE_HTTP_JS, {
    name: 'bare-http',
    args: [String(port), String(answerBytes)],
    readyUrl: origin,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 30_000,
  });
  try {
    return (await drive({ url: `${origin}/sign`, body }, 'bare node:http')).rate;
  } finally {
    await server.stop();
  }
}

/** node:crypto signing on every core at once for `ms`: the sum of the loops' rates, printed. */
async function signingLimit(when: string, ms: number): Promise<number> {
  const cores = availableParallelism();
  const loops = await Promise.all(Array.from({ length: cores }, () => signLoop(ms)));
  console.log(
    `  node:crypto Ed25519 signs in a loop ${when}, ${cores} processes at once: ${loops.map((r) => Math.round(r)).join(' + ')}/s`,
  );
  return loops.reduce((sum, rate) => sum + rate, 0);
}

export async function kmsPair(dataDir: string): Promise<void> {
  const cores = availableParallelism();
  // The limit is the mean of a loop just before the kms runs and one just after: on a shared machine the
  // cores' share moves within minutes, and one reading on one side of the kms's would carry that move.
  const before = await signingLimit('before the kms', (DURATION_S * 1_000) / 2);

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const service = await startProcess(serviceBin('@anchor/kms'), {
    name: 'kms',
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dataDir, '--dev-mode', '--log-level', 'error'],
    readyUrl: `${origin}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
  });
  const singleBody = JSON.stringify({ message: b64(randomBytes(32)) });
  let answerBytes: number;
  let single: { rate: number; p50: number; p99: number };
  let batch: { rate: number; p50: number; p99: number };
  try {
    const ks = await postJson<{ location: string; capability: string }>(`${origin}/v1/keystores`, {
      controller: 'did:example:bench',
    });
    const key = await postJson<{ location: string }>(`${ks.location}/keys`, { keyType: 'ED25519' }, ks.capability);
    answerBytes = JSON.stringify(
      await postJson(`${key.location}/sign`, JSON.parse(singleBody) as unknown, ks.capability),
    ).length;
    single = await drive({ url: `${key.location}/sign`, body: singleBody, token: ks.capability }, 'kms /sign');
    const messages = Array.from({ length: BATCH }, () => b64(randomBytes(32)));
    batch = await drive(
      { url: `${key.location}/signbatch`, body: JSON.stringify({ messages }), token: ks.capability },
      'kms /signbatch',
    );
  } finally {
    await service.stop();
  }
  const floor = await bareHttpRate(singleBody, answerBytes);
  const limit = (before + (await signingLimit('after the kms', (DURATION_S * 1_000) / 2))) / 2;
  console.log(`  kms /sign: p50 ${single.p50} ms, p99 ${single.p99} ms`);
  console.log(
    `  kms /signbatch of ${BATCH}: ${Math.round(batch.rate)} requests/s, p50 ${batch.p50} ms, p99 ${batch.p99} ms`,
  );
  console.log(
    `  HTTP floor: a bare node:http server answering the same ${answerBytes} bytes, same autocannon: ${Math.round(floor).toLocaleString('en-US')} req/s, ` +
      `${(floor / limit).toFixed(2)} of the signing limit: the most one sign per request can reach here`,
  );
  pair(
    `kms: Ed25519 signs over HTTP, one per request (${CONNECTIONS} conn) / node:crypto loop on ${cores} cores`,
    'signs/s',
    single.rate,
    limit,
    {
      note: `bound by the HTTP exchange: ${(single.rate / floor).toFixed(2)} of a bare node:http server's ${Math.round(floor).toLocaleString('en-US')} req/s; not the target's figure`,
    },
  );
  pair(
    `kms: Ed25519 signs over HTTP, ${BATCH} per /signbatch request (${CONNECTIONS} conn) / node:crypto loop on ${cores} cores`,
    'signs/s',
    batch.rate * BATCH,
    limit,
    { target: atLeast(0.5) },
  );
}
