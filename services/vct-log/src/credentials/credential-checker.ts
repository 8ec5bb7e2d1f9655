import {
  ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
  verifyDocument,
  type DocumentLoader,
  type VerificationMethodResolver,
} from '@anchor/common/jsonld';
import {
  asParseFailure,
  parseFailure,
  type PreparedCredential,
  type UndefinedTermsPolicy,
} from './entry-preparation.js';
import type { EntryPreparer } from './entry-preparer.js';

export interface CredentialCheckerOptions {
  preparer: EntryPreparer;
  resolver: VerificationMethodResolver;
  allowUndefinedTerms: UndefinedTermsPolicy;
  /** Bundled and operator contexts (the ones the entries were canonicalised with). */
  documentLoader: DocumentLoader;
}

/**
 * The add-vc credential check, as trustbloc/vct's `verifiable.ParseCredential` + issuer list: the body is
 * prepared into an entry (JSON, shape, issuer list, JSON-LD with the bundled and operator contexts; see
 * `prepareCredential`) and, when the credential carries proofs, every proof must verify with its
 * did:key / did:web key. Every failure is a 400 `parse credential: ...`, except the issuer list's own
 * `bad request: issuer ... is not in a list`.
 */
export class CredentialChecker {
  private readonly proofTerms: readonly string[];

  constructor(private readonly options: CredentialCheckerOptions) {
    // A proof never covers a dropped term, so proofs are checked with named exceptions only, never 'any'.
    this.proofTerms =
      options.allowUndefinedTerms === 'any' ? ANCHOR_CREDENTIAL_UNDEFINED_TERMS : options.allowUndefinedTerms;
  }

  async check(
    body: string | undefined,
    allowedIssuers: readonly string[] | undefined,
    timestamp: number,
  ): Promise<PreparedCredential> {
    const prepared = await this.options.preparer.prepare(body, timestamp, allowedIssuers);
    // Only credentials with proofs need the parsed document here (prepared proves the body is JSON).
    if (prepared.hasProofs) await this.verifyProofs(JSON.parse(body as string) as object);
    return prepared;
  }

  private async verifyProofs(credential: object): Promise<void> {
    let verification;
    try {
      verification = await verifyDocument(credential, {
        resolver: this.options.resolver,
        allowUndefinedTerms: [...this.proofTerms],
        documentLoader: this.options.documentLoader,
      });
    } catch (error) {
      throw asParseFailure(error);
    }
    if (!verification.verified) {
      const failed = verification.proofs.find((proof) => !proof.verified);
      const reason = failed?.failure
        ? `proof ${failed.index} (${failed.failure.check}): ${failed.failure.message}`
        : (verification.error ?? 'not verified');
      throw parseFailure(`proof verification failed: ${reason}`);
    }
  }
}
