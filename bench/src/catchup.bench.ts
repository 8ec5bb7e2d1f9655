/**
 * A new follower's catch-up alone, against a source a scale run kept (`npm run bench -- catchup --kept <dir>`,
 * where `<dir>` is what `npm run bench -- scale --keep` printed): the source is started on its data as that run
 * started it, a fresh follower follows it and reads its whole history, and the bench prints the rate (target
 * 5,000 operations/s, as the scale bench's catch-up), the rate per tenth of the history, and every 10 s the cores
 * each thread of the follower used and the source's: minutes instead of the scale run's hour, so a change to the
 * catch-up can be timed before and after on the same history. Without `--kept` it says so and measures nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, makeTempDir, stopAllProcesses, waitFor } from '@anchor/testing/process';
import { metricValue, startNodeProcess } from './federation/node-processes.js';
import { ed25519VerifiesPerSecond, loadAverage, syncedAppendMs } from './lib/machine.js';
import { atLeast, report, summary } from './lib/report.js';
import { KEPT_RUN_FILE, busyThreads, rateByTenths, threadTicks, type KeptScaleRun } from './scale/catch-up-rate.js';

const args = process.argv.slice(2);
const keptAt = args.indexOf('--kept');
const kept = keptAt >= 0 ? args[keptAt + 1] : undefined;
const APPLIED = 'node_observer_operations_applied_total{origin="remote"}';

if (kept === undefined || !existsSync(join(kept, KEPT_RUN_FILE))) {
  console.log(
    `catchup: skipped: needs --kept <dir>, the data of a \`npm run bench -- scale --keep\` run (with its ${KEPT_RUN_FILE})`,
  );
  process.exit(0);
}
const run = JSON.parse(readFileSync(join(kept, KEPT_RUN_FILE), 'utf8')) as KeptScaleRun;
const follower = await makeTempDir('catchup-bench-');
const result: Record<string, unknown> = {
  machine: {
    ed25519_verifies_per_s: ed25519VerifiesPerSecond(),
    fsync_append_p99_ms: syncedAppendMs(follower.path).p99,
    load_average_start: loadAverage(),
  },
  operations: run.operations,
};
try {
  const source = await startNodeProcess('source', kept, run.sourceArgs, {
    port: run.sourcePort,
    readyTimeoutMs: 600_000,
  });
  const node = await startNodeProcess(
    'follower',
    follower.path,
    ['--database-prefix', 'follower', '--sync-interval', '1s', '--sync-min-activity-age', '0s'],
    { port: await freePort() },
  );
  const sourceId = await source.admin.serviceId();
  const started = performance.now();
  await node.admin.follow(sourceId);
  const progress: Array<{ s: number; applied: number }> = [];
  let window = { s: 0, applied: 0, follower: threadTicks(node.process.pid), source: threadTicks(source.process.pid) };
  const cores = (ticks: Map<string, number>, before: Map<string, number>, seconds: number) =>
    [...ticks].reduce((sum, [thread, value]) => sum + (value - (before.get(thread) ?? 0)), 0) / 100 / seconds;
  await waitFor(
    async () => {
      const s = (performance.now() - started) / 1000;
      const applied = await metricValue(node.url, APPLIED);
      progress.push({ s, applied });
      if (s - window.s >= 10) {
        const now = { s, applied, follower: threadTicks(node.process.pid), source: threadTicks(source.process.pid) };
        const seconds = now.s - window.s;
        console.log(
          `${Math.round(s)} s: ${applied.toLocaleString('en-US')} applied, ${Math.round((applied - window.applied) / seconds)} ops/s; ` +
            `follower threads (cores): ${busyThreads(window.follower, now.follower, seconds)}; ` +
            `source ${cores(now.source, window.source, seconds).toFixed(2)} cores`,
        );
        window = now;
      }
      return applied >= run.operations;
    },
    { timeoutMs: 4 * 3_600_000, intervalMs: 250, description: 'the follower to catch up' },
  );
  const seconds = (performance.now() - started) / 1000;
  result.catchup_s = seconds;
  result.catchup_ops_per_s = run.operations / seconds;
  result.catchup_tenths_ops_per_s = rateByTenths(progress, run.operations);
  result.load_average_end = loadAverage();
  report(
    'catchup',
    `a new follower: ${run.operations.toLocaleString('en-US')} operations, verified`,
    run.operations / seconds,
    'ops/s',
    atLeast(5_000),
  );
  const tenths = result.catchup_tenths_ops_per_s as number[];
  console.log(
    `  by tenth of the history: ${tenths.map((rate) => Math.round(rate).toLocaleString('en-US')).join(', ')} ops/s`,
  );
} finally {
  await stopAllProcesses();
  await follower.remove();
}
summary();
console.log(JSON.stringify(result));
