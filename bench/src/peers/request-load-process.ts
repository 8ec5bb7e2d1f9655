/**
 * The load generator of every HTTP pair in `npm run bench -- peers`, run as a process of its own against our
 * service or its peer alike: the node bench's own generators (autocannon as fast as the server answers, or the
 * open-loop paced generator at a held rate, node/paced-load.ts), driving requests prepared in a file.
 *
 *   node request-load-process.js '<json RequestLoad>'
 *
 * The file has one request a line, `{"method","path","body"?}` (body: the text to send). With `random`, each
 * request is a random line (resolutions); otherwise lines are sent in order from `offset` and each once
 * (creates: running out is an error, re-sending would only measure duplicates). Prints one line
 * `result <json RequestLoadResult>`.
 */
import { readFileSync } from 'node:fs';
import { httpLoad } from '../node/http-load.js';
import { pacedLoad } from '../node/paced-load.js';
import { percentile } from '../lib/report.js';

export interface RequestLoad {
  origin: string;
  requestsFile: string;
  durationS: number;
  connections: number;
  /** Held open loop at this rate; without it, as fast as the server answers. */
  ratePerSecond?: number;
  random?: boolean;
  offset?: number;
  /** In order, starting over at the first line when the file runs out (for a server that does full work on a repeat). */
  cycle?: boolean;
}

export interface RequestLoadResult {
  rate: number;
  ok: number;
  failures: number;
  p50: number;
  p99: number;
  /** Lines taken from the file (in order mode: the next phase starts at offset + used). */
  used: number;
  /**
   * In order mode, the lines (0-based, in the file) answered 2xx: what the server says it created. A line taken
   * is not always one answered (a failure, or autocannon setting up a request it never sends at the end).
   */
  okLines: number[];
}

interface PreparedRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Buffer;
}

const load = JSON.parse(process.argv[2] ?? '{}') as RequestLoad;
const requests: PreparedRequest[] = readFileSync(load.requestsFile, 'utf8')
  .split('\n')
  .filter((line) => line.length > 0)
  .map((line) => {
    const { method, path, body } = JSON.parse(line) as { method: 'GET' | 'POST'; path: string; body?: string };
    return body === undefined ? { method, path } : { method, path, body: Buffer.from(body) };
  });
let next = load.offset ?? 0;
let used = 0;
const lineOf = new Map<PreparedRequest, number>();
const okLines: number[] = [];
const nextRequest = (): PreparedRequest => {
  used++;
  if (load.random) return requests[Math.floor(Math.random() * requests.length)] as PreparedRequest;
  if (load.cycle && next >= requests.length) next = 0;
  const request = requests[next];
  if (!request) throw new Error(`all ${requests.length} prepared requests were sent; prepare more`);
  lineOf.set(request, next++);
  return request;
};
const onOk = (request: { path: string; body?: Buffer }): void => {
  const line = lineOf.get(request as PreparedRequest);
  if (line !== undefined) okLines.push(line);
};
const options = {
  origin: load.origin,
  durationS: load.durationS,
  connections: load.connections,
  next: nextRequest,
  onOk,
};
const result =
  load.ratePerSecond === undefined
    ? await httpLoad(options)
    : await pacedLoad({ ...options, ratePerSecond: load.ratePerSecond });
const summary: RequestLoadResult = {
  rate: result.rate,
  ok: result.ok,
  failures: result.failures,
  p50: percentile(result.latenciesMs, 50),
  p99: percentile(result.latenciesMs, 99),
  used,
  okLines: okLines.sort((a, b) => a - b),
};
process.stdout.write(`result ${JSON.stringify(summary)}\n`);
