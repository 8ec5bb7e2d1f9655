import { serviceDidWebOptions } from '@anchor/common/did';
import type { HttpClient } from '@anchor/common/http-client';
import { getLogger } from '@anchor/common/log';
import { serviceHandle, type ServiceDefinition, type ServiceHandle } from '@anchor/common/service';
import { controllerSignatureAuthenticator } from './access/controller-signatures.js';
import { createApiFeature, type ApiFeature } from './api-feature.js';
import { createBbsFeature, type BbsFeature } from './bbs-feature.js';
import { createSigningFeature, type SigningFeature } from './signing-feature.js';
import type { KmsContext, KmsContextMembers } from './kms-context.js';
import { kmsEndpoint, kmsSettings, type KmsOptions } from './kms-options.js';
import { createKeystoresFeature, type KeystoresFeature } from './keystores-feature.js';
import { KmsMetrics } from './metrics.js';

export type { KmsOptions } from './kms-options.js';

export interface KmsServer extends ServiceHandle {
  /** The external base URL (`Location` headers). */
  readonly baseUrl: string;
}

interface KmsParts {
  keystores: KeystoresFeature;
  bbs: BbsFeature;
  signing: SigningFeature;
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
      const signing = add(await createSigningFeature(ctx));
      const api = add(createApiFeature(ctx, keystores, bbs, signing));
      return { keystores, bbs, signing, api };
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
  return serviceHandle('kms', kmsService(), options, (running) => ({
    get baseUrl() {
      return running('base URL').parts.api.baseUrl;
    },
  }));
}
