import { KeyPair } from '@anchor/common/crypto';
import { loadConfig } from '@anchor/common/config';
import { freePort, makeTempDir, waitFor, type TempDir } from '@anchor/testing/process';
import {
  addPublicKeys,
  createRequest,
  deactivateRequest,
  documentKey,
  recoverRequest,
  serializeRequest,
  updateRequest,
  type BuiltCreate,
  type OperationRequest,
} from '@anchor/sidetree';
import { nodeConfigSpec } from '../config.js';
import { createServer, type NodeServer, type NodeServerOptions } from '../server.js';

/**
 * In-process nodes for unit tests: a real server (real store, queue, HTTP listener on a free loopback port)
 * with short batches, plus a small client speaking its REST API.
 */
export interface TestNode {
  server: NodeServer;
  url: string;
  dir: TempDir;
  stop(): Promise<void>;
}

export async function startTestNode(
  options: {
    args?: string[];
    database?: 'mem' | 'lmdb';
    dir?: TempDir;
    port?: number;
    server?: NodeServerOptions;
  } = {},
): Promise<TestNode> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? (await makeTempDir('node-unit-'));
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig(nodeConfigSpec, {
    argv: [
      '--host-url',
      `127.0.0.1:${port}`,
      '--external-endpoint',
      url,
      '--data-dir',
      dir.path,
      '--database-type',
      options.database ?? 'mem',
      '--batch-writer-timeout',
      '100ms',
      '--mq-redelivery-initial-interval',
      '100ms',
      '--log-level',
      'error',
      ...(options.args ?? []),
    ],
    env: {},
  });
  const server = await createServer(config, options.server);
  await server.start();
  return {
    server,
    url,
    dir,
    async stop() {
      await server.stop();
      dropClientConnections();
    },
  };
}

/**
 * Gives this process's `fetch` a fresh connection pool. A node restarted on the same port is reached through
 * the same pooled origin, and a keep-alive connection the old server closed could still be handed out
 * before the pool has read the close (seen: "other side closed" on the first request after a restart, about
 * 1 run in 8). Real clients retry such a request; the tests start from clean connections instead.
 */
export function dropClientConnections(): void {
  const key = Symbol.for('undici.globalDispatcher.1');
  const holder = globalThis as unknown as Record<
    symbol,
    { constructor: new () => unknown; destroy(): Promise<void> } | undefined
  >;
  const current = holder[key];
  if (current === undefined) return;
  holder[key] = new current.constructor() as typeof current;
  void current.destroy().catch(() => undefined);
}

export interface HttpAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  text: string;
}

export async function postOperation(
  url: string,
  request: OperationRequest | Uint8Array | string,
  contentType = 'application/json',
): Promise<HttpAnswer> {
  const body = typeof request === 'string' || request instanceof Uint8Array ? request : serializeRequest(request);
  const response = await fetch(`${url}/sidetree/v1/operations`, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
  });
  return answer(response);
}

export async function resolveDid(url: string, did: string, query: Record<string, string> = {}): Promise<HttpAnswer> {
  const search = new URLSearchParams(query).toString();
  const response = await fetch(`${url}/sidetree/v1/identifiers/${did}${search ? `?${search}` : ''}`);
  return answer(response);
}

async function answer(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: leave the body empty, the text says what came
  }
  return { status: response.status, body, text };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read metadata members freely
export function metadataOf(result: HttpAnswer): Record<string, any> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  return result.body.didDocumentMetadata as Record<string, any>;
}

/** Resolves until the DID is published (optionally: with this many published operations). */
export async function waitPublished(url: string, did: string, operations = 1, timeoutMs = 15_000): Promise<HttpAnswer> {
  return waitFor(
    async () => {
      const result = await resolveDid(url, did);
      const method = metadataOf(result)?.method as { published?: boolean; publishedOperations?: unknown[] } | undefined;
      if (result.status !== 200 || method?.published !== true) return undefined;
      if (metadataOf(result).deactivated !== true && (method.publishedOperations?.length ?? 0) < operations)
        return undefined;
      return result;
    },
    { timeoutMs, intervalMs: 50, description: `${did} published with ${operations} operation(s)` },
  );
}

/** A DID and its keys, driving a full lifecycle through the client request builders. */
export class TestDid {
  recoveryKey = KeyPair.generate('Ed25519');
  updateKey = KeyPair.generate('Ed25519');
  readonly created: BuiltCreate;

  constructor(anchorOrigin: string, keyId = 'key-1') {
    this.created = createRequest({
      recoveryKey: this.recoveryKey,
      updateKey: this.updateKey,
      anchorOrigin,
      patches: [
        addPublicKeys(
          documentKey(keyId, KeyPair.generate('Ed25519'), { purposes: ['authentication', 'assertionMethod'] }),
        ),
      ],
    });
  }

  get suffix(): string {
    return this.created.didSuffix;
  }

  get did(): string {
    return this.created.did;
  }

  /** An update adding a key; rotates the update key only when `commit` is true (the request is then expected to be accepted). */
  update(keyId: string, commit = true): OperationRequest {
    const next = KeyPair.generate('Ed25519');
    const request = updateRequest({
      didSuffix: this.suffix,
      updateKey: this.updateKey,
      nextUpdateKey: next,
      patches: [addPublicKeys(documentKey(keyId, KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
    });
    if (commit) this.updateKey = next;
    return request;
  }

  recover(anchorOrigin: string, keyId: string, commit = true): OperationRequest {
    const nextRecovery = KeyPair.generate('Ed25519');
    const nextUpdate = KeyPair.generate('Ed25519');
    const request = recoverRequest({
      didSuffix: this.suffix,
      recoveryKey: this.recoveryKey,
      nextRecoveryKey: nextRecovery,
      nextUpdateKey: nextUpdate,
      anchorOrigin,
      patches: [
        addPublicKeys(
          documentKey(keyId, KeyPair.generate('Ed25519'), { purposes: ['authentication', 'assertionMethod'] }),
        ),
      ],
    });
    if (commit) {
      this.recoveryKey = nextRecovery;
      this.updateKey = nextUpdate;
    }
    return request;
  }

  deactivate(): OperationRequest {
    return deactivateRequest({ didSuffix: this.suffix, recoveryKey: this.recoveryKey });
  }
}
