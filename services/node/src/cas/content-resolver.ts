import { errorMessage, isRetryable, permanent, transient } from '@anchor/common/errors';
import { parseHashlink } from '@anchor/common/encoding';
import type { HttpClient } from '@anchor/common/http-client';
import type { ProviderBatchOp } from '@anchor/common/storage';
import { getLogger } from '@anchor/common/log';
import { observeDuration } from '@anchor/common/metrics';
import type { NodeMetrics } from '../observability/node-metrics.js';
import { CAS_MEDIA, CasStore } from './cas-store.js';

const log = getLogger('cas-resolver');

/**
 * Finds content by hashlink (or bare resource hash): this node's CAS first, then the hashlink's own links,
 * then `<source>/cas/<hash>` for each alternate source (a peer's base URL or CAS base). Fetched bytes must
 * hash to the requested resource hash; verified content is kept in the local CAS, so this node can serve
 * what it processed and never fetches it twice.
 */
export class ContentResolver {
  constructor(
    private readonly cas: CasStore,
    private readonly httpClient: HttpClient,
    private readonly metrics: NodeMetrics,
  ) {}

  /** Keeps content that arrived by other means (an embedded linkset) in the local CAS. */
  async store(content: Uint8Array, mediaType: string): Promise<void> {
    await this.cas.write(content, mediaType);
  }

  /** The same as one operation of a provider-level atomic batch (written with the records that need it). */
  storeOp(content: Uint8Array, mediaType: string): ProviderBatchOp {
    return this.cas.writeOp(content, mediaType);
  }

  resolve(reference: string, options: { sources?: readonly string[]; mediaType?: string } = {}): Promise<Buffer> {
    return observeDuration(this.metrics.casResolveSeconds, {}, () => this.find(reference, options));
  }

  private async find(reference: string, options: { sources?: readonly string[]; mediaType?: string }): Promise<Buffer> {
    const { resourceHash, links } = reference.startsWith('hl:')
      ? parseHashlink(reference)
      : { resourceHash: reference, links: [] };
    const readLocal = this.metrics.casReadSeconds.startTimer({ type: 'local' });
    const local = await this.cas.read(resourceHash);
    readLocal();
    if (local) {
      this.metrics.casCacheHits.inc();
      return local.content;
    }

    const candidates = [
      ...new Set([...links, ...(options.sources ?? []).map((source) => casUrl(source, resourceHash))]),
    ].filter((url) => /^https?:\/\//.test(url) && url !== this.cas.linkFor(resourceHash));
    if (candidates.length === 0)
      throw permanent(`content ${resourceHash} is not in the local CAS and nothing says where to fetch it`);

    const failures: string[] = [];
    let retryable = false;
    for (const url of candidates) {
      let data: Buffer;
      try {
        const readRemote = this.metrics.casReadSeconds.startTimer({ type: 'remote' });
        ({ data } = await this.httpClient.get<Buffer>(url, { responseType: 'buffer', headers: { accept: '*/*' } }));
        readRemote();
      } catch (error) {
        retryable ||= isRetryable(error);
        failures.push(`${url}: ${errorMessage(error)}`);
        log.debug('content fetch failed', { url, err: errorMessage(error) });
        continue;
      }
      if (CasStore.hashOf(data) !== resourceHash) {
        failures.push(`${url}: content does not hash to ${resourceHash}`);
        continue;
      }
      // Outside the fetch's error handling: keeping verified content is this node's own write, and its failure
      // says nothing about the content, so whatever the store answered, the anchor that needs it is retried.
      try {
        await this.cas.write(data, options.mediaType ?? CAS_MEDIA.unknown);
      } catch (error) {
        if (isRetryable(error)) throw error;
        throw transient(`content ${resourceHash} was fetched but not kept: ${errorMessage(error)}`, error);
      }
      return data;
    }
    const message = `content ${resourceHash} could not be fetched (${failures.join('; ')})`;
    // A peer that is down may come back; a peer that answered with other bytes or a 4xx will not.
    throw retryable ? transient(message) : permanent(message);
  }
}

function casUrl(source: string, hash: string): string {
  const base = source.replace(/\/+$/, '');
  return base.endsWith('/cas') ? `${base}/${hash}` : `${base}/cas/${hash}`;
}
