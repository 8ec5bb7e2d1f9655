/**
 * The federation under load, through the node's own code paths and real loopback HTTP:
 *
 *   1. Signed deliveries: a sender node and two follower nodes run as processes; Like activities posted to
 *      the sender's outbox (32 at a time) fan out to both followers as signed POSTs through the queue
 *      (`activitypub/delivery.ts`, httpsig signer), each verified by the follower's inbox before its 200.
 *      3,000 activities (6,000 deliveries) after a 300-activity warm-up; rate = deliveries / time from the
 *      first post to the last delivery counted by the sender; also the rate once every post was accepted, and
 *      the CPU each delivery costs the sender and the receiving node (from /proc), which says what the
 *      rate can be on 2 cores whatever else shares the machine (with this process's own share and the
 *      load average, since the posting and polling here and any other work take cores too). Profile the
 *      nodes with `BENCH_CPU_PROFILE_DIR=<dir>` (see `federation/node-processes.ts`).
 *   2. Observer ingest: an origin node (a process) anchors 20,000 creates in four anchors of 5,000 through
 *      its real pipeline; a node in this process is handed each anchor as the origin's Create carries it
 *      (`services.observer.submit`), fetches the batch files from the origin's CAS, verifies the proofs
 *      and commits; rate = operations / time from the first submit to the last anchor processed. A sample
 *      of the DIDs is then resolved on the observing node.
 *
 * Targets (2 cores, every process included): >= 1,000 signed deliveries/s; >= 5,000 operations/s ingested.
 *
 *   cd /work/main && npx tsc -b services/node bench && node bench/dist/federation.bench.js
 */
import { makeTempDir, stopAllProcesses } from '@anchor/testing/process';
import { measureObserverIngest } from './federation/observer-ingest.js';
import { measureSignedDeliveries } from './federation/signed-deliveries.js';
import { ed25519VerifiesPerSecond, syncedAppendMs } from './lib/machine.js';
import { atLeast, atMost, report, summary } from './lib/report.js';

const SECTION = 'federation';
const dir = await makeTempDir('federation-bench-');

try {
  report(SECTION, 'machine: Ed25519 verifies/s on one core, before the run', ed25519VerifiesPerSecond(), '/s');
  const sync = syncedAppendMs(dir.path);
  report(SECTION, 'machine: 4 KB append + fdatasync in the data directory, p50', sync.p50, 'ms');
  report(SECTION, 'machine: 4 KB append + fdatasync in the data directory, p99', sync.p99, 'ms');
  const deliveries = await measureSignedDeliveries(dir.path, { receivers: 2, activities: 3_000, warmup: 300 });
  report(
    SECTION,
    `signed deliveries to 2 loopback inboxes (${deliveries.deliveries.toLocaleString('en-US')})`,
    deliveries.perSecond,
    'deliveries/s',
    atLeast(1_000),
  );
  report(SECTION, '  outbox posts accepted by the sender', deliveries.postsPerSecond, 'posts/s');
  if (deliveries.afterPostsPerSecond !== undefined)
    report(SECTION, '  deliveries once every post was accepted', deliveries.afterPostsPerSecond, 'deliveries/s');
  report(SECTION, '  deliveries retried, dropped or dead-lettered', deliveries.failed, 'deliveries', atMost(0));
  report(SECTION, '  until the followers had handled every activity', deliveries.handledAfterS, 's');
  // What one delivery costs, whoever else shares the machine: 2 cores give at most 2,000 / (sum) per second.
  if (deliveries.senderCpuMs !== undefined)
    report(SECTION, '  CPU per delivery, sender (outbox post share included)', deliveries.senderCpuMs, 'ms');
  if (deliveries.receiverCpuMs !== undefined)
    report(SECTION, '  CPU per delivery, receiving node', deliveries.receiverCpuMs, 'ms');
  report(SECTION, '  CPU per delivery, this bench process (posting, polling)', deliveries.benchCpuMs, 'ms');
  report(SECTION, '  machine load average (1 min) as the run started', deliveries.loadAverage[0], '');
  report(SECTION, '  machine load average (1 min) as it ended', deliveries.loadAverage[1], '');
  await stopAllProcesses();

  const ingest = await measureObserverIngest(dir.path, { operations: 20_000, batchSize: 5_000 });
  report(
    SECTION,
    `observer ingest, ${ingest.anchors} received anchors (${ingest.operations.toLocaleString('en-US')} creates)`,
    ingest.perSecond,
    'ops/s',
    atLeast(5_000),
  );
  report(
    SECTION,
    `  sampled DIDs resolving published on the observer (of ${ingest.sampled})`,
    ingest.resolvable,
    'DIDs',
    atLeast(ingest.sampled),
  );
} finally {
  await stopAllProcesses();
  await dir.remove();
}
summary();
