import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { unavailable } from '../errors/index.js';
import {
  contextLookupKey,
  createDocumentLoader,
  type ContextDocument,
  type ContextSource,
  type DocumentLoader,
} from '../jsonld/index.js';
import type { ContextSnapshot, JsonLdContexts } from './context-store.js';

/** What a worker thread is given at start to follow the service's contexts (`WorkerContexts`). */
export interface WorkerContextsSetup {
  readonly channelName: string;
  readonly snapshot: ContextSnapshot;
}

type ContextMessage = { type: 'snapshot'; snapshot: ContextSnapshot } | { type: 'request' };

/** How long a worker waits for the contexts a task was accepted under before failing it (503, retryable). */
export const WORKER_CONTEXTS_WAIT_MS = 10_000;

/**
 * Hands the service's operator contexts to its worker threads: every change is broadcast to them on a
 * channel of this process, and a worker that is behind (a thread started after a change) asks for the
 * current set. Tasks carry `version`, and a worker runs a task only once it has that version, so a
 * credential submitted after `POST /ld/context` answered is always checked with the added context.
 */
export class ContextBroadcast {
  readonly channelName = `jsonld-contexts:${randomUUID()}`;
  private readonly channel = new BroadcastChannel(this.channelName);
  private closed = false;

  constructor(private readonly contexts: JsonLdContexts) {
    this.channel.unref();
    contexts.onChange((snapshot) => this.post({ type: 'snapshot', snapshot }));
    this.channel.onmessage = (event) => {
      if ((event as { data?: ContextMessage }).data?.type === 'request')
        this.post({ type: 'snapshot', snapshot: this.contexts.snapshot() });
    };
  }

  /** The version a task submitted now must be run under. */
  get version(): number {
    return this.contexts.version;
  }

  /** The workers' start-up data (part of their `workerData`). */
  setup(): WorkerContextsSetup {
    return { channelName: this.channelName, snapshot: this.contexts.snapshot() };
  }

  close(): void {
    this.closed = true;
    this.channel.close();
  }

  private post(message: ContextMessage): void {
    if (!this.closed) this.channel.postMessage(message);
  }
}

/** A worker thread's copy of the service's operator contexts (see `ContextBroadcast`). */
export class WorkerContexts implements ContextSource {
  /** Bundled contexts, then the service's operator contexts as of the latest version received. */
  readonly documentLoader: DocumentLoader;
  private byKey = new Map<string, ContextDocument>();
  private version = -1;
  private readonly channel: BroadcastChannel;
  private waiters: Array<() => void> = [];

  constructor(setup: WorkerContextsSetup) {
    this.documentLoader = createDocumentLoader({ sources: [this] });
    this.apply(setup.snapshot);
    this.channel = new BroadcastChannel(setup.channelName);
    this.channel.unref();
    this.channel.onmessage = (event) => {
      const message = (event as { data?: ContextMessage }).data;
      if (message?.type === 'snapshot') this.apply(message.snapshot);
    };
  }

  async load(url: string): Promise<ContextDocument | undefined> {
    return this.byKey.get(contextLookupKey(url));
  }

  /** Resolves once this copy is at `version` or later; a 503 when it does not get there in time. */
  async upTo(version: number, timeoutMs = WORKER_CONTEXTS_WAIT_MS): Promise<void> {
    if (this.version >= version) return;
    this.channel.postMessage({ type: 'request' } satisfies ContextMessage);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== check);
        reject(unavailable(`the JSON-LD contexts of version ${version} did not reach the worker thread in time`));
      }, timeoutMs);
      const check = (): void => {
        if (this.version < version) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((waiter) => waiter !== check);
        resolve();
      };
      this.waiters.push(check);
    });
  }

  private apply(snapshot: ContextSnapshot): void {
    if (snapshot.version <= this.version) return;
    this.version = snapshot.version;
    this.byKey = new Map(snapshot.contexts.map(({ url, document }) => [contextLookupKey(url), document]));
    for (const waiter of [...this.waiters]) waiter();
  }
}
