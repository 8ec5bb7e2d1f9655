/**
 * Our node as the did:plc pair meets it: the built node as its own process, started bare as the node bench
 * starts it (LMDB, in-process queue, 1 s batches), with creates prepared before the load (node/create-requests.ts)
 * written in the load generator's request format.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess, waitFor, type ServiceProcess } from '@anchor/testing/process';
import { prepareCreates, type PreparedCreate } from '../node/create-requests.js';

export interface OurNode {
  origin: string;
  process: ServiceProcess;
  /** Waits until every accepted operation is anchored. */
  drained(): Promise<void>;
}

export async function startOurNode(dataDir: string): Promise<OurNode> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const node = await startProcess(serviceBin('@anchor/node'), {
    name: 'node',
    args: [
      '--host-url',
      `127.0.0.1:${port}`,
      '--external-endpoint',
      origin,
      '--data-dir',
      dataDir,
      '--log-level',
      'warning',
    ],
    readyUrl: `${origin}/healthcheck`,
    readyStatus: (status) => status === 200,
    readyTimeoutMs: 60_000,
  });
  const pending = async () =>
    Number(/^node_pending_operations (\d+)/m.exec(await (await fetch(`${origin}/metrics`)).text())?.[1] ?? Number.NaN);
  return {
    origin,
    process: node,
    drained: async () => {
      await waitFor(async () => (await pending()) === 0, {
        timeoutMs: 180_000,
        intervalMs: 250,
        description: 'the node to anchor its backlog',
      });
    },
  };
}

/** Writes `count` prepared creates to `file` (one request a line) and returns them (their DIDs resolve later). */
export function writeCreates(file: string, count: number, origin: string): PreparedCreate[] {
  const creates = prepareCreates(count, origin);
  writeFileSync(
    file,
    creates
      .map((create) =>
        JSON.stringify({ method: 'POST', path: '/sidetree/v1/operations', body: create.body.toString('utf8') }),
      )
      .join('\n'),
  );
  return creates;
}

export const resolutionsFile = (dir: string, paths: readonly string[]): string => {
  const file = join(dir, `resolutions-${Math.random().toString(36).slice(2, 8)}.jsonl`);
  writeFileSync(file, paths.map((path) => JSON.stringify({ method: 'GET', path })).join('\n'));
  return file;
};
