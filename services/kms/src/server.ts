import { serviceDidWebOptions } from '@anchor/common/did';
import type { HttpApp } from '@anchor/common/http';
import type { HttpClient } from '@anchor/common/http-client';
import { getLogger } from '@anchor/common/log';
import { createService, type Service, type ServiceDefinition } from '@anchor/common/service';
import { controllerSignatureAuthenticator } from './access/controller-signatures.js';
import { createApiFeature, type ApiFeature } from './api-feature.js';
import { createBbsFeature, type BbsFeature } from './bbs-feature.js';
import type { KmsContext, KmsContextMembers } from './kms-context.js';
import { kmsEndpoint, kmsSettings, type KmsOptions } from './kms-options.js';
import { createKeystoresFeature, type KeystoresFeature } from './keystores-feature.js';
import { KmsMetrics } from './metrics.js';

export type { KmsOptions } from './kms-options.js';

export interface KmsServer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The API's URL once started (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The separate metrics listener's URL, when `metricsHost` is set. */
  readonly metricsUrl: string | undefined;
  /** The external base URL (`Location` headers). */
  readonly baseUrl: string;
  /** The HTTP kit once started: its route table (`routeTableOf`) and what express routes, for tests and tools. */
  readonly http: HttpApp;
  /** Told when the kms cannot go on in this process (its store needs a restart); `main` then exits 1. */
  onFatal(listener: (reason: string) => void): void;
}

interface KmsParts {
  keystores: KeystoresFeature;
  bbs: BbsFeature;
  api: ApiFeature;
}

const log = getLogger('kms-server');

/** The kms on the service kit: the keystores at rest (master key checked), the BBS workers, then the API. */
function kmsService(): ServiceDefinition<KmsOptions, KmsContextMembers, KmsParts> {
  // The signature authenticator is built before the kit's outbound client exists; it asks for it per request.
  let outbound: HttpClient | undefined;
  const http = (): HttpClient => {
    if (!outbound) throw new Error('kms: the outbound client is not ready');
    return outbound;
  };
  return {
    name: 'kms-server',
    metricsPrefix: 'kms_',
    settings: kmsSettings,
    extend: async ({ metrics, config }) => ({
      context: { kmsMetrics: new KmsMetrics(metrics) },
      signatureAuthenticator: controllerSignatureAuthenticator({
        node: config.nodeUrl ? { url: config.nodeUrl.replace(/\/+$/, ''), token: config.nodeToken } : undefined,
        http,
        cacheTtlMs: config.didCacheTtlMs ?? 5 * 60_000,
        web: serviceDidWebOptions({ ...kmsEndpoint(config), ca: config.caCertificates }),
      }),
    }),
    async features(ctx: KmsContext, add) {
      outbound = ctx.httpClient;
      const keystores = add(await createKeystoresFeature(ctx));
      const bbs = add(await createBbsFeature(ctx));
      const api = add(createApiFeature(ctx, keystores, bbs));
      return { keystores, bbs, api };
    },
    started(ctx, { api }) {
      log.info('kms started', {
        url: ctx.listener.url,
        baseUrl: api.baseUrl,
        storage: ctx.config.storage?.type ?? 'lmdb',
        nodeUrl: ctx.config.nodeUrl,
      });
    },
  };
}

/**
 * The key management service. `start()` builds and starts it, refusing a master key that is not the one
 * its database was sealed under; `stop()` lets in-flight requests finish, then closes the store.
 */
export function createServer(options: KmsOptions = {}): KmsServer {
  let service: Service<KmsContext, KmsParts> | undefined;
  let starting = false;
  const fatalListeners: Array<(reason: string) => void> = [];
  const running = (what: string): Service<KmsContext, KmsParts> => {
    if (!service) throw new Error(`kms is not started (no ${what} yet)`);
    return service;
  };
  return {
    async start() {
      if (starting) throw new Error('kms is already started');
      starting = true;
      service = await createService(kmsService(), options);
      for (const listener of fatalListeners) service.onFatal(listener);
      await service.start();
    },
    stop: async () => service?.stop(),
    get url() {
      return running('listener').url;
    },
    get metricsUrl() {
      return service?.metricsUrl;
    },
    get baseUrl() {
      return running('base URL').parts.api.baseUrl;
    },
    get http() {
      return running('HTTP app').context.http;
    },
    onFatal(listener) {
      if (service) service.onFatal(listener);
      else fatalListeners.push(listener);
    },
  };
}
