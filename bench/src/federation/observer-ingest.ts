import { join } from 'node:path';
import { loadConfig } from '@anchor/common/config';
import { createHttpClient } from '@anchor/common/http-client';
import { createServer, nodeConfigSpec } from '@anchor/node';
import { freePort, waitFor } from '@anchor/testing/process';
import { prepareCreates } from '../node/create-requests.js';
import { metricValue, startNodeProcess } from './node-processes.js';

/** Clients posting creates to the origin at once (building the anchors is set-up, not what is measured). */
const CREATE_CONNECTIONS = 64;

export interface IngestFigures {
  anchors: number;
  operations: number;
  /** Operations committed per second, from the first submit to the last anchor processed. */
  perSecond: number;
  /** Sampled DIDs that resolve as published on the observing node afterwards. */
  resolvable: number;
  sampled: number;
}

/**
 * Observer ingest of anchors received from another node. An origin node (a process, bare) takes
 * `operations` creates and anchors them in batches of `batchSize` through its real pipeline (batch files
 * in its CAS, signed credential, witnessed linkset), publishing each anchor as a Create in its outbox. A
 * second node runs in this process; each anchor, as a Create carries it (hashlink, embedded linkset,
 * attributed to the origin, the origin as source), is handed to its observer (`services.observer.submit`,
 * what the federation's inbox does), which fetches the batch files from the origin's CAS, verifies the
 * credential's proof against the origin's did:web key and commits every operation. Timed from the first
 * submit until the observer has reported every anchor processed.
 */
export async function measureObserverIngest(
  dataRoot: string,
  options: { operations: number; batchSize: number },
): Promise<IngestFigures> {
  const origin = await startNodeProcess('origin', dataRoot, [
    '--max-operations-per-batch',
    String(options.batchSize),
    '--batch-writer-timeout',
    '10m',
  ]);
  const originId = await origin.admin.serviceId();
  const creates = prepareCreates(options.operations, origin.url);
  const http = createHttpClient({ timeoutMs: 60_000 });
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATE_CONNECTIONS }, async () => {
      while (next < creates.length) {
        const create = creates[next++]!;
        await http.request(`${origin.url}/sidetree/v1/operations`, {
          method: 'POST',
          body: create.body,
          headers: { 'content-type': 'application/json' },
          responseType: 'text',
        });
      }
    }),
  );
  http.close();
  const anchorCount = Math.ceil(options.operations / options.batchSize);
  const published = await waitFor(
    async () => {
      const creates = (await origin.admin.activities('outbox')).filter((activity) => activity.type === 'Create');
      return creates.length >= anchorCount && (await metricValue(origin.url, 'node_pending_operations')) === 0
        ? creates
        : undefined;
    },
    { timeoutMs: 600_000, intervalMs: 500, description: `the origin to publish ${anchorCount} anchors` },
  );

  const port = await freePort();
  const observer = await createServer(
    loadConfig(nodeConfigSpec, {
      argv: [
        '--host-url',
        `127.0.0.1:${port}`,
        '--external-endpoint',
        `http://127.0.0.1:${port}`,
        '--data-dir',
        join(dataRoot, 'observer'),
        '--log-level',
        'error',
      ],
      env: {},
    }),
  );
  await observer.start();
  try {
    let committed = 0;
    let anchors = 0;
    observer.services.observer.onProcessed((processed) => {
      committed += processed.suffixes.length;
      anchors++;
    });
    const started = performance.now();
    for (const create of published) {
      const event = create.object as { url: string; object?: object };
      await observer.services.observer.submit({
        hashlink: event.url,
        ...(event.object ? { linkset: event.object } : {}),
        attributedTo: originId,
        sources: [origin.url],
      });
    }
    await waitFor(() => anchors >= published.length, {
      timeoutMs: 600_000,
      intervalMs: 10,
      description: `${published.length} anchors to be processed`,
    });
    const elapsedS = (performance.now() - started) / 1000;

    const sample = Array.from({ length: 100 }, (_, i) => creates[Math.floor((i * creates.length) / 100)]!.did);
    let resolvable = 0;
    for (const did of sample) {
      const response = await fetch(`http://127.0.0.1:${port}/sidetree/v1/identifiers/${did}`);
      const result = response.ok
        ? ((await response.json()) as { didDocumentMetadata?: { method?: { published?: boolean } } })
        : undefined;
      if (result?.didDocumentMetadata?.method?.published === true) resolvable++;
    }
    return { anchors, operations: committed, perSecond: committed / elapsedS, resolvable, sampled: sample.length };
  } finally {
    await observer.stop();
  }
}
