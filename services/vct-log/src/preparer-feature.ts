import type { JsonLdContexts } from '@anchor/common/jsonld-contexts';
import type { Feature } from '@anchor/common/service';
import { CredentialChecker } from './credentials/credential-checker.js';
import { didVerificationMethodResolver } from './credentials/did-verification-methods.js';
import { createEntryPreparer, workerCount } from './credentials/entry-preparer.js';
import type { VctLogContext } from './log-context.js';
import type { LogsFeature } from './logs-feature.js';

/** Terms the original's anchor credentials use without defining them. */
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
    workers: workerCount(options.canonicalizeWorkers ?? 'auto'),
    allowUndefinedTerms,
    signer: logs.signer,
    contexts,
  });
  const checker = new CredentialChecker({
    preparer,
    allowUndefinedTerms,
    documentLoader: contexts.documentLoader,
    resolver: didVerificationMethodResolver({
      devMode: options.devMode ?? false,
      cacheTtlMs: options.didCacheTtlMs ?? 5 * 60_000,
      ...(options.didWebFetch ? { fetch: options.didWebFetch } : {}),
    }),
  });
  return { name: 'preparer', checker, stop: () => preparer.close() };
}
