import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createHashlink, multibaseMultihash } from '@anchor/common/encoding';
import { AppError, internal, unavailable } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import { batchMemberOf, buildBatch } from '@anchor/sidetree';
import { buildAnchorLink, type AnchorLink } from './anchor-linkset.js';

/** A batch's Sidetree files, ready for the CAS: URIs are hashlinks naming this node's `/cas/<hash>`. */
export interface BuiltBatchFiles {
  coreIndexFileUri: string;
  files: Array<{ uri: string; content: Buffer }>;
}

/** What an anchor link is built from (see `buildAnchorLink`). */
export type AnchorLinkInput = Parameters<typeof buildAnchorLink>[0];

/** An operation as the builder takes it: its canonical request (JSON text) and its DID suffix. */
export interface BatchFileInput {
  requests: readonly string[];
  suffixes: readonly string[];
}

/**
 * Builds what an anchor needs off the event loop: the batch files of this node's accepted operations given
 * in batch order, and the anchor link (JCS and gzip of the content object, the related linkset and the
 * credential).
 */
export interface BatchFileBuilder {
  build(input: BatchFileInput, casBase: string): Promise<BuiltBatchFiles>;
  link(input: AnchorLinkInput): Promise<AnchorLink>;
  close(): Promise<void>;
}

/**
 * The work itself. The requests were validated at intake and are the canonical (normalised) ones, so each is
 * only read back as JSON: parsing them again (hashing the suffix data, checking keys) was more than half of
 * the worker's time per anchor, time taken from the event loop's core on a small machine.
 */
export function buildBatchFiles({ requests, suffixes }: BatchFileInput, casBase: string): BuiltBatchFiles {
  if (requests.length !== suffixes.length) throw internal(`batch files: ${requests.length} requests but ${suffixes.length} suffixes`);
  const members = requests.map((request, index) => batchMemberOf(JSON.parse(request) as Record<string, unknown>, suffixes[index] as string));
  const built = buildBatch(members, { contentUri: (content) => createHashlink(content, [`${casBase}/${multibaseMultihash(content)}`]) });
  return { coreIndexFileUri: built.coreIndexFileUri, files: built.files.map((file) => ({ uri: file.uri, content: file.content })) };
}

/** Messages between the builder and its worker thread. */
export type BuildRequest = { id: number; task: 'files'; input: BatchFileInput; casBase: string } | { id: number; task: 'link'; input: AnchorLinkInput };

export type BuildReply =
  | { id: number; files: { coreIndexFileUri: string; files: Array<{ uri: string; content: Uint8Array }> } }
  | { id: number; link: AnchorLink }
  | { id: number; error: { code: string | undefined; message: string } };

/** Runs one task (in the worker, or inline). */
export function runBuildTask(request: BuildRequest): BuildReply {
  try {
    if (request.task === 'link') return { id: request.id, link: buildAnchorLink(request.input) };
    return { id: request.id, files: buildBatchFiles(request.input, request.casBase) };
  } catch (error) {
    return { id: request.id, error: { code: error instanceof AppError ? error.code : undefined, message: error instanceof Error ? error.message : String(error) } };
  }
}

const WORKER_FILE = fileURLToPath(new URL('./batch-file-worker.js', import.meta.url));

/**
 * The work runs on a worker thread when the compiled worker is there (the built service): JCS and gzip of
 * a batch of thousands of operations take tens of milliseconds, which would otherwise stall every request
 * the node is serving. Run from TypeScript sources (unit tests) it runs inline.
 */
export function createBatchFileBuilder(): BatchFileBuilder {
  if (!existsSync(WORKER_FILE)) {
    return { build: async (input, casBase) => buildBatchFiles(input, casBase), link: async (input) => buildAnchorLink(input), close: async () => undefined };
  }
  return new WorkerBatchFileBuilder();
}

class WorkerBatchFileBuilder implements BatchFileBuilder {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(reply: BuildReply): void; reject(error: unknown): void }>();
  private closed = false;

  async build(input: BatchFileInput, casBase: string): Promise<BuiltBatchFiles> {
    const reply = await this.run({ id: this.nextId++, task: 'files', input, casBase });
    if (!('files' in reply)) throw internal('the batch file worker answered a files task with something else');
    return { coreIndexFileUri: reply.files.coreIndexFileUri, files: reply.files.files.map((file) => ({ uri: file.uri, content: Buffer.from(file.content) })) };
  }

  async link(input: AnchorLinkInput): Promise<AnchorLink> {
    const reply = await this.run({ id: this.nextId++, task: 'link', input });
    if (!('link' in reply)) throw internal('the batch file worker answered a link task with something else');
    return reply.link;
  }

  private run(request: BuildRequest): Promise<BuildReply> {
    if (this.closed) return Promise.reject(unavailable('the batch file builder is closed'));
    const worker = this.ensureWorker();
    return new Promise<BuildReply>((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE);
    worker.unref();
    worker.on('message', (reply: BuildReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new AppError((reply.error.code as never) ?? 'internal', reply.error.message));
      else waiting.resolve(reply);
    });
    const fail = (reason: string): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(internal(`the batch file worker stopped: ${reason}`));
      this.pending.clear();
      if (!this.closed) getLogger('anchor-writer').warn('batch file worker stopped; the next batch starts a new one', { reason });
    };
    worker.on('error', (error) => fail(error.message));
    worker.on('exit', (code) => fail(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}
