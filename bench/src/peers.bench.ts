/**
 * Peers side by side: every speed figure as a ratio to a real peer measured in the same run, on the same
 * machine, with the same load generator (ADR 0012: an absolute target on this shared 2-core machine measures
 * the machine). Each peer is installed by the project's own scripts, pinned (bench/peers/package.json and its
 * lock for npm, Debian's PostgreSQL, bench/peers/tessera/go.mod for the Go module proxy), started on loopback
 * and stopped at the end.
 *
 *   - did:plc (@did-plc/server on PostgreSQL) against our node: creates and resolutions at the highest rate
 *     held under p99 50 ms / 10 ms, and CPU per operation of every process (peers/did-plc.ts);
 *   - Digital Bazaar (@digitalbazaar/vc) against our signing code in-process and our vcs over HTTP: issue and
 *     verify, Ed25519Signature2020 and eddsa-rdfc-2022 (peers/vc.ts);
 *   - Fedify (@fedify/fedify) against our node's delivery path: signed deliveries per second from one sender to
 *     one receiver that verifies each signature (peers/fedify.ts);
 *   - Tessera (POSIX) against our vct-log: durable appends and inclusion proofs (peers/tessera.ts);
 *   - our kms against node:crypto signing in a loop on every core (peers/kms.ts).
 *
 * Each pair prints both figures and the ratio (> 1: we are ahead; a cost's ratio is the peer's over ours) and
 * says where we are behind; the last line is `{"pairs":[{"name","unit","ours","peer","ratio"} | {"name","skipped"}]}`.
 * `npm test` never runs this. Targets (ratios): did:plc >= 3x on creates and resolutions, Fedify >= 2x on
 * deliveries, Tessera >= 1x on appends, Digital Bazaar >= 1x on in-process verify, the kms >= 0.5 of the limit.
 *
 *   npm run bench -- peers                  every pair
 *   npm run bench -- peers --only kms,vc    some (plc, vc, fedify, tessera, kms)
 *   npm run bench -- peers --only vct-log-cpu   our vct-log's CPU per append alone (not a pair; holds on a busy machine)
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, stopAllProcesses } from '@anchor/testing/process';
import { ed25519VerifiesPerSecond, loadAverage, syncedAppendMs } from './lib/machine.js';
import { didPlcPairs } from './peers/did-plc.js';
import { fedifyPairs } from './peers/fedify.js';
import { kmsPair } from './peers/kms.js';
import { printPairs } from './peers/pairs.js';
import { tesseraPairs, vctLogAppendCpu } from './peers/tessera.js';
import { vcPairs } from './peers/vc.js';

const GROUPS: Record<string, (dir: string) => Promise<void>> = {
  plc: didPlcPairs,
  vc: vcPairs,
  fedify: fedifyPairs,
  tessera: tesseraPairs,
  'vct-log-cpu': vctLogAppendCpu,
  kms: kmsPair,
};
const onlyAt = process.argv.indexOf('--only');
/** Not a pair: run only when asked for. */
const ON_REQUEST = new Set(['vct-log-cpu']);
const wanted =
  onlyAt >= 0
    ? (process.argv[onlyAt + 1] ?? '').split(',')
    : Object.keys(GROUPS).filter((name) => !ON_REQUEST.has(name));
const unknown = wanted.filter((name) => !(name in GROUPS));
if (unknown.length > 0)
  throw new Error(`unknown peers ${unknown.join(', ')}; known: ${Object.keys(GROUPS).join(', ')}`);

const dir = await makeTempDir('peers-bench-');
const machine = (when: string) => {
  const sync = syncedAppendMs(dir.path);
  console.log(
    `machine ${when}: load average ${loadAverage().toFixed(2)}; Ed25519 verifies/s on one core ${Math.round(ed25519VerifiesPerSecond()).toLocaleString('en-US')}; ` +
      `4 KB append + fdatasync here p50 ${sync.p50.toFixed(2)} ms, p99 ${sync.p99.toFixed(2)} ms`,
  );
};
try {
  machine('before the run');
  for (const name of wanted) {
    console.log(`\n--- ${name} (load average ${loadAverage().toFixed(2)}) ---`);
    const group = GROUPS[name] as (dir: string) => Promise<void>;
    const groupDir = join(dir.path, name);
    mkdirSync(groupDir, { recursive: true });
    await group(groupDir);
    await stopAllProcesses();
  }
  console.log('');
  machine('after the run');
} finally {
  await stopAllProcesses();
  await dir.remove();
}
printPairs();
