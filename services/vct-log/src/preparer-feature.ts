import { serviceDidWebOptions } from '@anchor/common/did';
import type { JsonLdContexts } from '@anchor/common/jsonld-contexts';
import type { Feature } from '@anchor/common/service';
import { workerThreads } from '@anchor/common/workers';
import { CredentialChecker } from './credentials/credential-checker.js';
import { didVerificationMethodResolver } from './credentials/did-verification-methods.js';
import { createEntryPreparer } from './credentials/entry-preparer.js';
import type { VctLogContext } from './log-context.js';
import type { LogsFeature } from './logs-feature.js';

/** Terms the anchor credentials of Orb nodes use without defining them. */
const DEFAULT_UNDEFINED_TERMS: readonly string[] = ['href', 'rel', 'AnchorLink'];

/** The credential checker and its canonicalisation workers (closed on stop). */
export interface PreparerFeature extends Feature {
  readonly checker: CredentialChecker;
}

export async function createPreparerFeature(
  ctx: VctLogContext,
  logs: LogsFeature,
  contexts: JsonLdContexts,
): Promise<PreparerFeature> {
  const options = ctx.config;
  const allowUndefinedTerms = options.allowUndefinedTerms ?? DEFAULT_UNDEFINED_TERMS;
  const preparer = await createEntryPreparer({
    workers: workerThreads(options.canonicalizeWorkers ?? 'auto'),
    allowUndefinedTerms,
    signer: logs.signer,
    contexts,
  });
  const checker = new CredentialChecker({
    preparer,
    allowUndefinedTerms,
    documentLoader: contexts.documentLoader,
    resolver: didVerificationMethodResolver({
      cacheTtlMs: options.didCacheTtlMs ?? 5 * 60_000,
      // A proof's issuer is anyone's to name: its did:web host gets the SSRF guard.
      web: {
        ...serviceDidWebOptions({
          devMode: options.devMode ?? false,
          ownEndpoint: options.baseUrl,
          allowedPeerNetworks: options.allowedPeerNetworks,
          listenHost: options.host ?? '127.0.0.1',
          servesTls: options.tls !== undefined,
          ca: options.caCertificates,
        }),
        ...(options.didWebFetch ? { fetch: options.didWebFetch } : {}),
      },
    }),
  });
  return { name: 'preparer', checker, stop: () => preparer.close() };
}
