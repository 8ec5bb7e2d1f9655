/**
 * One load phase of the scale bench, in a process of its own (the generator must not share a process with the
 * orchestrator): `node load.js '<json ScalePhase>'`, last line `result <json>`.
 *
 * - `grow`: `count` creates as fast as the node takes them (closed loop, `connections` at once); the accepted
 *   DIDs' suffixes are appended to `file`, one a line.
 * - `update`: update `step` of every suffix in `suffixes`, closed loop.
 * - `chain`: updates 1..`steps` of each suffix in `suffixes`, each DID's in order (one request of a DID at a time).
 * - `paced-create`: `count` creates offered at `rate`/s, open loop (latency from when each was due), appended to `file`.
 * - `resolve`: GET each of `paths` (once each, in order, unless `random`), paced at `rate`/s when given, else as
 *   fast as `connections` allow for `durationS` or until the paths run out.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createHttpClient } from '@anchor/common/http-client';
import { percentile } from '../lib/report.js';
import { httpLoad } from '../node/http-load.js';
import { pacedLoad } from '../node/paced-load.js';
import { createBody, updateBody } from './requests.js';

export type ScalePhase =
  | { kind: 'grow'; origin: string; count: number; connections: number; file: string }
  | { kind: 'update'; origin: string; suffixes: string[]; step: number; connections: number }
  | { kind: 'chain'; origin: string; suffixes: string[]; steps: number }
  | { kind: 'paced-create'; origin: string; count: number; rate: number; connections: number; file: string }
  | {
      kind: 'resolve';
      origin: string;
      pathsFile: string;
      random?: boolean;
      rate?: number;
      durationS: number;
      connections: number;
    };

export interface PhaseResult {
  ok: number;
  failures: number;
  rate: number;
  p50: number;
  p99: number;
  firstFailure?: string;
}

// On stdin, not in argv: a phase over 100k DIDs lists them all, past the kernel's limit on arguments (E2BIG).
const phase = JSON.parse(await readStdin()) as ScalePhase;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
const OPERATIONS = '/sidetree/v1/operations';

async function closedLoop(
  origin: string,
  bodies: () => Buffer | undefined,
  connections: number,
  onOk?: (index: number) => void,
): Promise<PhaseResult> {
  const http = createHttpClient({ timeoutMs: 120_000 });
  const latencies: number[] = [];
  let ok = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  let index = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (;;) {
        const mine = index++;
        const body = bodies();
        if (body === undefined) return;
        const at = performance.now();
        try {
          await http.request(`${origin}${OPERATIONS}`, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
            responseType: 'text',
          });
          latencies.push(performance.now() - at);
          ok++;
          onOk?.(mine);
        } catch (error) {
          failures++;
          firstFailure ??= (error as Error).message;
        }
      }
    }),
  );
  http.close();
  const seconds = (performance.now() - started) / 1000;
  return {
    ok,
    failures,
    rate: ok / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...(firstFailure ? { firstFailure } : {}),
  };
}

async function run(): Promise<PhaseResult> {
  switch (phase.kind) {
    case 'grow': {
      let made = 0;
      const accepted: string[] = [];
      const suffixes: string[] = [];
      const result = await closedLoop(
        phase.origin,
        () => {
          if (made >= phase.count) return undefined;
          made++;
          const { suffix, body } = createBody(phase.origin);
          suffixes.push(suffix);
          return body;
        },
        phase.connections,
        (index) => {
          accepted.push(suffixes[index] as string);
          if (accepted.length >= 10_000) appendFileSync(phase.file, `${accepted.splice(0).join('\n')}\n`);
        },
      );
      if (accepted.length > 0) appendFileSync(phase.file, `${accepted.join('\n')}\n`);
      return result;
    }
    case 'update': {
      let next = 0;
      return closedLoop(
        phase.origin,
        () => (next < phase.suffixes.length ? updateBody(phase.suffixes[next++] as string, phase.step) : undefined),
        phase.connections,
      );
    }
    case 'chain': {
      const results = await Promise.all(
        phase.suffixes.map((suffix) => {
          let j = 0;
          return closedLoop(phase.origin, () => (j < phase.steps ? updateBody(suffix, ++j) : undefined), 1);
        }),
      );
      return {
        ok: results.reduce((sum, r) => sum + r.ok, 0),
        failures: results.reduce((sum, r) => sum + r.failures, 0),
        rate: results.reduce((sum, r) => sum + r.rate, 0),
        p50: Math.max(...results.map((r) => r.p50)),
        p99: Math.max(...results.map((r) => r.p99)),
        ...(results.find((r) => r.firstFailure)
          ? { firstFailure: results.find((r) => r.firstFailure)!.firstFailure! }
          : {}),
      };
    }
    case 'paced-create': {
      const prepared = Array.from({ length: phase.count }, () => createBody(phase.origin));
      const suffixOf = new Map(prepared.map((create) => [create.body, create.suffix]));
      let next = 0;
      const accepted: string[] = [];
      const result = await pacedLoad({
        origin: phase.origin,
        durationS: phase.count / phase.rate,
        ratePerSecond: phase.rate,
        connections: phase.connections,
        next: () => ({ method: 'POST', path: OPERATIONS, body: (prepared[next++] as { body: Buffer }).body }),
        onOk: (request) => {
          const suffix = request.body ? suffixOf.get(request.body) : undefined;
          if (suffix) accepted.push(suffix);
        },
      });
      appendFileSync(phase.file, accepted.map((suffix) => `${suffix}\n`).join(''));
      return summarise(result);
    }
    case 'resolve': {
      const paths = readFileSync(phase.pathsFile, 'utf8').split('\n').filter(Boolean);
      let next = 0;
      const pick = (): string => {
        if (phase.random) return paths[Math.floor(Math.random() * paths.length)] as string;
        if (next >= paths.length) throw new Error(`all ${paths.length} paths were sent`);
        return paths[next++] as string;
      };
      if (phase.rate !== undefined) {
        const result = await pacedLoad({
          origin: phase.origin,
          durationS: phase.durationS,
          ratePerSecond: phase.rate,
          connections: phase.connections,
          next: () => ({ method: 'GET', path: pick() }),
        });
        return summarise(result);
      }
      const result = await httpLoad({
        origin: phase.origin,
        durationS: phase.durationS,
        connections: phase.connections,
        // Past the end of a once-each list the load goes on over the list again (then warm): the caller sizes it.
        next: () => ({ method: 'GET', path: phase.random ? pick() : (paths[next++ % paths.length] as string) }),
      });
      return summarise(result);
    }
  }
}

function summarise(result: { rate: number; ok: number; failures: number; latenciesMs: number[] }): PhaseResult {
  return {
    ok: result.ok,
    failures: result.failures,
    rate: result.rate,
    p50: percentile(result.latenciesMs, 50),
    p99: percentile(result.latenciesMs, 99),
  };
}

process.stdout.write(`result ${JSON.stringify(await run())}\n`);
