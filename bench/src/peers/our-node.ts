/**
 * Our node as the did:plc pair meets it: the built node as its own process, started bare as the node and
 * federation benches start it (LMDB in `<dataRoot>/node`, in-process queue, 1 s batches), with creates prepared
 * before the load (node/create-requests.ts) written in the load generator's request format.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, type ServiceProcess } from '@anchor/testing/process';
import { startNodeProcess } from '../federation/node-processes.js';
import { prepareCreates, type PreparedCreate } from '../node/create-requests.js';

export interface OurNode {
  origin: string;
  process: ServiceProcess;
  /** Waits until every accepted operation is anchored. */
  drained(): Promise<void>;
}

export async function startOurNode(dataRoot: string): Promise<OurNode> {
  const node = await startNodeProcess('node', dataRoot);
  const pending = async () =>
    Number(
      /^node_pending_operations (\d+)/m.exec(await (await fetch(`${node.url}/metrics`)).text())?.[1] ?? Number.NaN,
    );
  return {
    origin: node.url,
    process: node.process,
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
