import { VctLogClient } from '@anchor/common/clients';
import { AppError, errorMessage } from '@anchor/common/errors';
import type { HttpClient } from '@anchor/common/http-client';
import type { DocumentLoader } from '@anchor/common/jsonld';

/** The log's promise for an issued credential, as the issue answer carries it. */
export interface VctReceipt {
  id: string;
  timestamp: number;
  signature: string;
}

/**
 * The transparency log the vcs adds its issued credentials to (`--vct-url`, a log alias URL), through the common
 * log client: every promise, tree head and inclusion proof checked against the key the log publishes.
 */
export class VctLog {
  private readonly client: VctLogClient;

  constructor(
    readonly url: string,
    httpClient: HttpClient,
    token: string | undefined,
    documentLoader: DocumentLoader,
    /** The longest the log takes to merge an accepted entry (`--vct-merge-delay`). */
    private readonly mergeDelayMs = 5_000,
  ) {
    this.client = new VctLogClient({ httpClient, readToken: token, writeToken: token, documentLoader });
  }

  async add(credential: Record<string, unknown>): Promise<VctReceipt> {
    const { id, timestamp, signature } = await this.client.addCredential(this.url, credential);
    return { id, timestamp, signature };
  }

  /**
   * Undefined when the credential is in the log under `timestamp`, proven against the current STH; else why not.
   * An entry younger than the merge delay may be accepted and not yet in a tree head: it is asked for again
   * until it is in or the merge delay from its timestamp has passed, so a young credential never fails.
   */
  async inclusionProblem(credential: Record<string, unknown>, timestamp: number): Promise<string | undefined> {
    const leafHash = await this.client.leafHashOf(credential, timestamp);
    const mergedBy = timestamp + this.mergeDelayMs;
    for (;;) {
      const problem = await this.absence(leafHash);
      if (problem === undefined) return undefined;
      const wait = mergedBy - Date.now();
      if (wait <= 0) {
        const age = ((Date.now() - timestamp) / 1000).toFixed(1);
        return `${problem} (accepted ${age} s ago, past the merge delay of ${this.mergeDelayMs / 1000} s)`;
      }
      await new Promise((done) => setTimeout(done, Math.min(250, wait)));
    }
  }

  /** Undefined when the leaf is in the log's current tree, else why not. */
  private async absence(leafHash: Buffer): Promise<string | undefined> {
    const sth = await this.client.signedTreeHead(this.url);
    if (sth.tree_size === 0) return 'not in the log: the log is empty';
    try {
      await this.client.verifyInclusion(this.url, leafHash, sth);
      return undefined;
    } catch (error) {
      if (error instanceof AppError && error.retryable) throw error;
      return `not in the log of size ${sth.tree_size}: ${errorMessage(error)}`;
    }
  }

  status(): Promise<string> {
    return this.client.health(this.url);
  }
}
