import { mountRoutes } from '@anchor/common/http';
import type { Feature } from '@anchor/common/service';
import { precompileSchemas } from '@anchor/common/schemas';
import { PROJECT_VERSION } from '@anchor/common/version';
import { keystoreHandlers } from './api/keystore-handlers.js';
import { kmsOperations } from './api/kms-operations.js';
import * as schemas from './api/schemas.js';
import { wrapAndBbsOperations } from './api/wrap-bbs-operations.js';
import type { BbsFeature } from './bbs-feature.js';
import { DidCreation } from './dids/did-creation.js';
import type { KeystoresFeature } from './keystores-feature.js';
import type { SigningFeature } from './signing-feature.js';
import type { KmsContext } from './kms-context.js';
import { kmsEndpoint } from './kms-options.js';
import { kmsRoutes } from './routes.js';

/** The kms API from the route table. */
export interface ApiFeature extends Feature {
  /** The external base URL (`Location` headers); known once the listener is up. */
  readonly baseUrl: string;
}

export function createApiFeature(
  ctx: KmsContext,
  { keystores }: KeystoresFeature,
  { bbs }: BbsFeature,
  { batchSigner }: SigningFeature,
): ApiFeature {
  const { http, kmsMetrics: metrics, config } = ctx;
  let baseUrl = config.baseUrl?.replace(/\/+$/, '');
  const knownBaseUrl = (): string => {
    if (baseUrl === undefined) throw new Error('kms is not started (no base URL yet)');
    return baseUrl;
  };
  http.app.set('etag', false);
  // Compiled while starting, not under the first requests.
  precompileSchemas(
    ...Object.values(schemas).filter((value) => typeof value === 'object' && value !== null && '$id' in value),
  );
  http.health.addFields(() => ({ version: PROJECT_VERSION }));
  const nodeUrl = config.nodeUrl?.replace(/\/+$/, '');
  const dids = new DidCreation(
    keystores,
    () => ctx.httpClient,
    nodeUrl ? { url: nodeUrl, token: config.nodeToken, anchorOrigin: config.nodeAnchorOrigin ?? nodeUrl } : undefined,
  );
  const operations = kmsOperations({ keystores, metrics, baseUrl: knownBaseUrl, batchSigner });
  mountRoutes(
    http,
    kmsRoutes(http, {
      ...keystoreHandlers({ keystores, metrics, dids, baseUrl: knownBaseUrl, endpoint: kmsEndpoint(config) }),
      ...operations,
      ...wrapAndBbsOperations({ keystores, metrics, baseUrl: knownBaseUrl, bbs }),
    }),
  );
  return {
    name: 'api',
    get baseUrl() {
      return knownBaseUrl();
    },
    async start() {
      baseUrl ??= `${ctx.listener.secure ? 'https' : 'http'}://${displayHost(config.host ?? '127.0.0.1')}:${ctx.listener.port}`;
    },
  };
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
