/**
 * Our kms against the machine: Ed25519 signs per second through the kms over loopback HTTP (the built service
 * as its own process, 16 keep-alive connections from autocannon, as the kms bench drives it) against
 * node:crypto signing the same 32-byte message in a loop, one process per core, on the same cores: the
 * physical limit here. The ratio is the share of that limit the service delivers.
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
const CONNECTIONS = 16;
const DURATION_S = 10;

function signLoop(ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SIGN_LOOP_JS, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`sign loop: ${code}`))));
  });
}

export async function kmsPair(dataDir: string): Promise<void> {
  const cores = availableParallelism();
  const loops = await Promise.all(Array.from({ length: cores }, () => signLoop(DURATION_S * 1_000)));
  const limit = loops.reduce((sum, rate) => sum + rate, 0);
  console.log(
    `  node:crypto Ed25519 signs in a loop, ${cores} processes at once: ${loops.map((r) => Math.round(r)).join(' + ')}/s`,
  );

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const service = await startProcess(serviceBin('@anchor/kms'), {
    name: 'kms',
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dataDir, '--dev-mode', '--log-level', 'error'],
    readyUrl: `${origin}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
  });
  try {
    const ks = await postJson<{ location: string; capability: string }>(`${origin}/v1/keystores`, {
      controller: 'did:example:bench',
    });
    const key = await postJson<{ location: string }>(`${ks.location}/keys`, { keyType: 'ED25519' }, ks.capability);
    const body = JSON.stringify({ message: b64(randomBytes(32)) });
    const load = (duration: number) =>
      autocannon({
        url: `${key.location}/sign`,
        method: 'POST',
        connections: CONNECTIONS,
        duration,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ks.capability}` },
        requests: [{ method: 'POST', body }],
      });
    await load(3);
    const result = await load(DURATION_S);
    const failures = result.non2xx + result.errors + result.timeouts;
    if (failures > 0) console.log(`  kms sign: ${failures} failures`);
    const rate = result['2xx'] / result.duration;
    console.log(`  kms over HTTP: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
    pair(
      `kms: Ed25519 signs over HTTP (${CONNECTIONS} conn) / node:crypto loop on ${cores} cores`,
      'signs/s',
      rate,
      limit,
      {
        target: atLeast(0.5),
      },
    );
  } finally {
    await service.stop();
  }
}
