/**
 * One load phase against a node, run as its own process by `node.bench.ts` (the load generator must not
 * share a process with the orchestrator's polling and bookkeeping). A phase with a rate is held at it by the
 * open-loop paced generator (paced-load.ts); one without runs autocannon as fast as the node answers.
 *
 *   node load-process.js '<json LoadPhase>'
 *
 * Prints `accepted <did> <epoch ms>` for every `sampleEvery`-th accepted create as it happens, and one last
 * line `result <json LoadSummary>`. For creates it also writes every accepted DID, one a line, to
 * `didsFile`; for resolutions it reads the DIDs to resolve from there.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { percentile } from '../lib/report.js';
import { prepareCreates } from './create-requests.js';
import { httpLoad } from './http-load.js';
import { pacedLoad } from './paced-load.js';

/** With a rate, the open-loop paced generator; without, autocannon as fast as the node answers. */
const load = (options: Parameters<typeof httpLoad>[0] & { ratePerSecond?: number }) =>
  options.ratePerSecond === undefined
    ? httpLoad(options)
    : pacedLoad({ ...options, ratePerSecond: options.ratePerSecond });

export interface LoadPhase {
  origin: string;
  kind: 'creates' | 'resolutions';
  durationS: number;
  connections: number;
  ratePerSecond?: number;
  /** Creates prepared before the load starts (creates only). */
  prepare?: number;
  /** Report every this-many-th accepted create (creates only; 0: none). */
  sampleEvery?: number;
  didsFile: string;
  /** Resolutions: resolve the listed DIDs in order once (a pass) instead of random picks. */
  sequential?: boolean;
}

export interface LoadSummary {
  rate: number;
  ok: number;
  failures: number;
  p50: number;
  p99: number;
}

const phase = JSON.parse(process.argv[2] ?? '{}') as LoadPhase;

if (phase.kind === 'creates') {
  const creates = prepareCreates(phase.prepare ?? 10_000, phase.origin);
  let next = 0;
  let accepted = 0;
  const acceptedDids: string[] = [];
  const didOf = new Map<Buffer, string>(creates.map((create) => [create.body, create.did]));
  const result = await load({
    origin: phase.origin,
    durationS: phase.durationS,
    connections: phase.connections,
    ...(phase.ratePerSecond !== undefined ? { ratePerSecond: phase.ratePerSecond } : {}),
    next: () => {
      // Running out means the node outpaced the preparation: re-sending would only measure duplicates.
      const create = creates[next++];
      if (!create) throw new Error(`all ${creates.length} prepared creates were sent; prepare more`);
      return { method: 'POST', path: '/sidetree/v1/operations', body: create.body };
    },
    onOk: (request, answeredAt) => {
      const did = request.body ? didOf.get(request.body) : undefined;
      if (did === undefined) return;
      acceptedDids.push(did);
      if (phase.sampleEvery && ++accepted % phase.sampleEvery === 0)
        process.stdout.write(`accepted ${did} ${answeredAt}\n`);
    },
  });
  appendFileSync(phase.didsFile, acceptedDids.map((did) => `${did}\n`).join(''));
  finish(result);
} else {
  const dids = readFileSync(phase.didsFile, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0);
  let pass = 0;
  const result = await load({
    origin: phase.origin,
    durationS: phase.durationS,
    connections: phase.connections,
    ...(phase.ratePerSecond !== undefined ? { ratePerSecond: phase.ratePerSecond } : {}),
    next: () => ({
      method: 'GET',
      path: `/sidetree/v1/identifiers/${phase.sequential ? dids[pass++ % dids.length] : dids[Math.floor(Math.random() * dids.length)]}`,
    }),
  });
  finish(result);
}

function finish(result: { rate: number; ok: number; failures: number; latenciesMs: number[] }): void {
  const summary: LoadSummary = {
    rate: result.rate,
    ok: result.ok,
    failures: result.failures,
    p50: percentile(result.latenciesMs, 50),
    p99: percentile(result.latenciesMs, 99),
  };
  process.stdout.write(`result ${JSON.stringify(summary)}\n`);
}
