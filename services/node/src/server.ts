import { readFile } from 'node:fs/promises';
import { startHttpServer, type RunningHttpServer } from '@anchor/common/http';
import type { NodeConfig } from './config.js';
import { createNodeContext, type NodeContext } from './context.js';
import type { NodeFeature } from './feature.js';

export { nodeConfigSpec, type NodeConfig } from './config.js';

export interface NodeServer {
  /** Listens and starts every feature's background work. */
  start(): Promise<void>;
  /** Stops background work, lets in-flight requests finish, then closes the queue and the store. */
  stop(): Promise<void>;
  /** The listening URL (after start). */
  readonly url: string;
  readonly context: NodeContext;
}

/**
 * Builds a node from its config: the context (store, queue, keys, HTTP kit), then each feature in
 * dependency order. Tests, the local federation and production all start nodes through this function.
 */
export async function createServer(config: NodeConfig): Promise<NodeServer> {
  const context = await createNodeContext(config);
  const features: NodeFeature[] = [];

  let running: RunningHttpServer | undefined;
  let started: NodeFeature[] = [];
  return {
    context,
    get url() {
      if (!running) throw new Error('node server not started');
      return running.url;
    },
    async start() {
      running = await startHttpServer(context.http.app, {
        host: config.hostUrl.host,
        port: config.hostUrl.port,
        ...(config.tlsCertificate && config.tlsKey
          ? { tls: { cert: await readFile(config.tlsCertificate), key: await readFile(config.tlsKey) } }
          : {}),
      });
      for (const feature of features) {
        await feature.start?.();
        started.push(feature);
      }
      context.log.info('node started', { url: running.url, externalEndpoint: context.urls.externalEndpoint, serviceId: context.urls.serviceId });
    },
    async stop() {
      for (const feature of started.reverse()) await feature.stop?.();
      started = [];
      await running?.close();
      running = undefined;
      await context.close();
    },
  };
}
