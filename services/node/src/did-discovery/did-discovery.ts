import { formatHashlink, parseHashlink, UNPUBLISHED_ANCHOR } from '@anchor/common/encoding';
import { AppError, errorMessage, notFound, unavailable } from '@anchor/common/errors';
import type { HttpClient } from '@anchor/common/http-client';
import type { FetchPolicy } from '@anchor/common/httpsig';
import type { Logger } from '@anchor/common/log';
import { observeDuration } from '@anchor/common/metrics';
import { findJrdLink, type WebFingerClient } from '@anchor/common/webfinger';
import { canonicalDid, type ParsedNodeDid, type ResolutionModel } from '@anchor/sidetree';
import { LRUCache } from 'lru-cache';
import type { AnchorObserver } from '../observer/anchor-observer.js';
import type { ResolutionService, ResolvedDid, VersionOptions } from '../resolution/resolution-service.js';
import { OperationRejected } from '../operations/operation-rejected.js';
import type { DidDiscoveryMetrics } from './did-discovery-metrics.js';
import { anchorOriginBase, checkPeer, hintedBase } from './peer-base.js';

export interface DidDiscoveryOptions {
  namespace: string;
  /** This node's base URL: an anchor origin here is never asked. */
  ownBase: string;
  /** `--discovery-domains`: more places to fetch anchors and batch files from. */
  discoveryDomains: readonly string[];
  plainHttp: 'always' | 'loopback' | 'never';
  /** Which addresses a hint or an anchor origin may make this node call (the key-fetch policy). */
  peerPolicy: FetchPolicy;
  /** `--enable-did-discovery`. */
  discoverUnknown: boolean;
  /** `--resolve-from-anchor-origin`. */
  resolveFromAnchorOrigin: boolean;
}

export interface DidDiscoveryDeps {
  resolution: ResolutionService;
  observer: AnchorObserver;
  webFinger: WebFingerClient;
  httpClient: HttpClient;
  log: Logger;
  metrics: DidDiscoveryMetrics;
}

/** What an anchor origin says about a DID: the parts of its resolution result compared here. */
interface OriginView {
  base: string;
  anchorOrigin: string | undefined;
  updateCommitment: string | undefined;
  recoveryCommitment: string | undefined;
  /** The hashlinks (else `hl:<hash>`) of the anchors holding the DID's published operations, oldest first. */
  anchors: string[];
}

/** Bases whose resolution endpoint was read from their `/.well-known/did-orb`. */
const ENDPOINTS_KEPT = 1_000;

/**
 * DID discovery and the anchor-origin checks (orb.md §2.10). Nothing is taken on a peer's word: what a
 * peer says only tells this node which anchor to fetch, and every anchor goes through the observer, which
 * checks the linkset's hash, the anchor credential and its proofs, the parents and the batch files before it
 * commits the operations (the same path as a followed node's anchors).
 *
 * - discovery: a DID unknown here with a hashlink hint (`<ns>:hl:<hash>:<links>:<suffix>`) or an https hint
 *   (`<ns>:https:<domain>:<hash>:<suffix>`) has its anchor fetched from the hashlink's links or from the
 *   latest anchor the hinted node's WebFinger names (`via`), then whatever its anchor origin has anchored
 *   since, before the answer: a client gets the DID on its first request.
 * - catching up: the anchor origin's resolution result lists the anchors of the DID's published operations;
 *   those missing here are processed (the newest, whose parents lead back to the others).
 */
export class DidDiscovery {
  private readonly inFlight = new Map<string, Promise<number>>();
  private readonly endpoints = new LRUCache<string, string>({ max: ENDPOINTS_KEPT });

  constructor(
    private readonly deps: DidDiscoveryDeps,
    private readonly options: DidDiscoveryOptions,
  ) {}

  /** The identifiers endpoint's resolution: discovery for an unknown hinted DID, the anchor origin's news for a known one. */
  async resolve(did: string, versions: VersionOptions): Promise<ResolvedDid> {
    const { resolution, log } = this.deps;
    let resolved: ResolvedDid;
    try {
      resolved = await resolution.resolve(did, versions);
    } catch (error) {
      if (!this.options.discoverUnknown || !(AppError.is(error) && error.code === 'not_found')) throw error;
      const parsed = resolution.parse(did);
      if (parsed.hint.kind !== 'hashlink' && parsed.hint.kind !== 'https') throw error;
      try {
        await this.discover(parsed);
      } catch (failure) {
        log.info('DID discovery failed', { did, err: errorMessage(failure) });
        throw notFound(`${error.message}; discovery from its hint found nothing: ${errorMessage(failure)}`);
      }
      return resolution.resolve(did, versions);
    }
    if (!this.options.resolveFromAnchorOrigin || versions.versionId !== undefined || versions.versionTime !== undefined)
      return resolved;
    const metadata = resolved.result.didDocumentMetadata as {
      canonicalId?: string;
      method?: { anchorOrigin?: string };
    };
    if (metadata.canonicalId === undefined) return resolved;
    try {
      const suffix = resolution.parse(did).suffix;
      const caughtUp = await observeDuration(this.deps.metrics.resolveFromAnchorOriginSeconds, {}, () =>
        this.catchUp(suffix, metadata.canonicalId as string, metadata.method?.anchorOrigin),
      );
      if (caughtUp > 0) resolved = await resolution.resolve(did, versions);
    } catch (error) {
      // The origin being unreachable leaves this node's own (checked) view as the answer, as in Orb.
      log.warn('could not ask the anchor origin for newer operations', { did, err: errorMessage(error) });
    }
    return resolved;
  }

  /** Fetches and processes the anchors of a hinted DID; resolves to the number of anchors newly processed. */
  discover(parsed: ParsedNodeDid): Promise<number> {
    let pending = this.inFlight.get(parsed.suffix);
    if (!pending) {
      const end = this.deps.metrics.requestDiscoverySeconds.startTimer();
      pending = this.discoverOnce(parsed)
        .then(
          (processed) => {
            end({ result: processed > 0 ? 'found' : 'none' });
            return processed;
          },
          (error: unknown) => {
            end({ result: 'failed' });
            throw error;
          },
        )
        .finally(() => this.inFlight.delete(parsed.suffix));
      this.inFlight.set(parsed.suffix, pending);
    }
    return pending;
  }

  /**
   * `--verify-latest-from-anchor-origin`: an update, recover or deactivate of a DID anchored elsewhere is
   * accepted only when the anchor origin has nothing this node lacks (Orb's messages).
   * `published` is the DID's state from its published operations here, `current` with the pending ones.
   */
  async verifyLatest(suffix: string, published: ResolutionModel, current: ResolutionModel): Promise<void> {
    const base = published.anchorOrigin && anchorOriginBase(published.anchorOrigin, this.options.plainHttp);
    if (base === undefined || base === this.options.ownBase || published.canonicalReference === undefined) return;
    let origin: OriginView;
    try {
      origin = await this.originView(base, canonicalDid(published.canonicalReference, suffix, this.options.namespace));
    } catch (error) {
      throw unavailable(
        `the anchor origin ${base} could not confirm that this node has the latest operations of ${suffix}: ${errorMessage(error)}`,
      );
    }
    if (origin.anchorOrigin !== published.anchorOrigin)
      throw new OperationRejected(
        'origin',
        'anchor origin has different anchor origin for this DID - please re-submit your request at later time',
      );
    const missing = await this.missingHere(origin.anchors);
    if (missing.length > 0) {
      // Fetched now, so that the client's next attempt finds this node up to date.
      void this.ingest(missing.at(-1) as string, [base]).catch((error: unknown) =>
        this.deps.log.warn('catching up from the anchor origin failed', { suffix, err: errorMessage(error) }),
      );
      throw new OperationRejected(
        'origin',
        'anchor origin has additional published operations - please re-submit your request at later time',
      );
    }
    const differs = (model: ResolutionModel): boolean =>
      origin.updateCommitment !== model.updateCommitment || origin.recoveryCommitment !== model.recoveryCommitment;
    if (differs(published) && differs(current))
      throw new OperationRejected(
        'origin',
        'anchor origin has unpublished operations - please re-submit your request at later time',
      );
  }

  private async discoverOnce(parsed: ParsedNodeDid): Promise<number> {
    const start = await this.hintedAnchor(parsed);
    let processed = await this.ingest(start.hashlink, start.sources);
    const { result } = await this.deps.resolution.resolve(
      `${this.options.namespace}:${UNPUBLISHED_ANCHOR}:${parsed.suffix}`,
    );
    const metadata = result.didDocumentMetadata as { canonicalId?: string; method?: { anchorOrigin?: string } };
    if (metadata.canonicalId !== undefined) {
      try {
        processed += await this.catchUp(parsed.suffix, metadata.canonicalId, metadata.method?.anchorOrigin);
      } catch (error) {
        this.deps.log.warn('discovered DID: its anchor origin could not be asked for newer operations', {
          did: parsed.did,
          err: errorMessage(error),
        });
      }
    }
    return processed;
  }

  /** The anchor a hint points at, and where to fetch it and its files from. */
  private async hintedAnchor(parsed: ParsedNodeDid): Promise<{ hashlink: string; sources: string[] }> {
    const { hint } = parsed;
    const extra = this.options.discoveryDomains;
    if (hint.kind === 'hashlink') {
      await this.checkLinks(hint.links);
      return { hashlink: hint.hashlink, sources: [...originsOf(hint.links), ...extra] };
    }
    if (hint.kind !== 'https') throw notFound(`${parsed.did} carries no hint saying where it is anchored`);
    const base = hintedBase(hint.domain, this.options.plainHttp);
    await checkPeer(base, this.options.peerPolicy);
    const jrd = await this.deps.webFinger.lookup(base, parsed.shortForm);
    const via = findJrdLink(jrd, 'via')?.href;
    if (via === undefined || !via.startsWith('hl:'))
      throw notFound(`${base} names no anchor for ${parsed.shortForm} in its WebFinger answer`);
    await this.checkLinks(parseHashlink(via).links);
    return { hashlink: via, sources: [base, ...extra] };
  }

  /** Asks the DID's anchor origin (when another node) for its anchors of the DID and processes those missing here. */
  private async catchUp(suffix: string, canonicalId: string, anchorOrigin: string | undefined): Promise<number> {
    const base = anchorOrigin && anchorOriginBase(anchorOrigin, this.options.plainHttp);
    if (base === undefined || base === this.options.ownBase) return 0;
    const missing = await this.missingHere((await this.originView(base, canonicalId)).anchors);
    if (missing.length === 0) return 0;
    this.deps.log.info('processing anchors of a DID its anchor origin has and this node lacked', {
      suffix,
      origin: base,
      anchors: missing.length,
    });
    // The newest one's parents lead back to the others.
    return this.ingest(missing.at(-1) as string, [base, ...this.options.discoveryDomains]);
  }

  /** The hosts a hashlink's links name must be ones this node may call (see `checkPeer`). */
  private async checkLinks(links: readonly string[]): Promise<void> {
    for (const origin of new Set(originsOf(links))) await checkPeer(origin, this.options.peerPolicy);
  }

  /** One anchor (and its unprocessed parents) through the observer: 1 when it was new here, else 0. */
  private async ingest(hashlink: string, sources: readonly string[]): Promise<number> {
    if (await this.deps.observer.isProcessed(parseHashlink(hashlink).resourceHash)) return 0;
    return (await this.deps.observer.process({ hashlink, sources: [...new Set(sources)] })) === 'processed' ? 1 : 0;
  }

  private async missingHere(anchors: readonly string[]): Promise<string[]> {
    const missing: string[] = [];
    for (const hashlink of anchors)
      if (!(await this.deps.observer.isProcessed(parseHashlink(hashlink).resourceHash))) missing.push(hashlink);
    return missing;
  }

  /** The anchor origin's resolution of the DID, through the resolution endpoint its `/.well-known/did-orb` names. */
  private async originView(base: string, canonicalId: string): Promise<OriginView> {
    await checkPeer(base, this.options.peerPolicy);
    const endpoint = await this.resolutionEndpoint(base);
    const { data: bytes } = await this.deps.httpClient.get<Buffer>(`${endpoint}/${canonicalId}`, {
      // Orb's answer, with the metadata compared here (did+ld+json would be the bare document).
      headers: { accept: 'application/json' },
      responseType: 'buffer',
    });
    let data: unknown;
    try {
      data = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new AppError('bad_gateway', `${base} answered a resolution result that is not JSON`);
    }
    const metadata = (data as { didDocumentMetadata?: unknown } | null)?.didDocumentMetadata as
      | {
          versionId?: unknown;
          method?: {
            anchorOrigin?: unknown;
            updateCommitment?: unknown;
            recoveryCommitment?: unknown;
            publishedOperations?: unknown;
          };
        }
      | undefined;
    if (typeof metadata !== 'object' || metadata === null)
      throw new AppError('bad_gateway', `${base} answered a resolution result without didDocumentMetadata`);
    const method = metadata.method ?? {};
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
    const anchors: string[] = [];
    const add = (reference: string, equivalents: unknown): void => {
      const linked = Array.isArray(equivalents)
        ? equivalents.find((item): item is string => typeof item === 'string' && item.startsWith(`hl:${reference}`))
        : undefined;
      const hashlink = linked ?? formatHashlink({ resourceHash: reference, links: [] });
      if (!anchors.includes(hashlink)) anchors.push(hashlink);
    };
    if (Array.isArray(method.publishedOperations)) {
      for (const operation of method.publishedOperations as Array<Record<string, unknown>>) {
        const reference = text(operation?.canonicalReference);
        if (reference !== undefined) add(reference, operation.equivalentReferences);
      }
    }
    const versionId = text(metadata.versionId);
    if (versionId !== undefined && !anchors.some((hashlink) => hashlink.startsWith(`hl:${versionId}`)))
      add(versionId, undefined);
    for (const hashlink of anchors) parseHashlink(hashlink);
    return {
      base,
      anchorOrigin: text(method.anchorOrigin),
      updateCommitment: text(method.updateCommitment),
      recoveryCommitment: text(method.recoveryCommitment),
      anchors,
    };
  }

  private async resolutionEndpoint(base: string): Promise<string> {
    let endpoint = this.endpoints.get(base);
    if (endpoint === undefined) {
      const { data } = await observeDuration(this.deps.metrics.getAnchorOriginEndpointSeconds, {}, () =>
        this.deps.httpClient.get<{ resolutionEndpoint?: unknown }>(`${base}/.well-known/did-orb`),
      );
      const named = data?.resolutionEndpoint;
      if (typeof named !== 'string' || !/^https?:\/\//.test(named))
        throw new AppError('bad_gateway', `${base}/.well-known/did-orb names no resolution endpoint`);
      endpoint = named.replace(/\/+$/, '');
      await checkPeer(endpoint, this.options.peerPolicy);
      this.endpoints.set(base, endpoint);
    }
    return endpoint;
  }
}

/** The http(s) origins of a hashlink's links (other schemes name no node). */
function originsOf(links: readonly string[]): string[] {
  return links.flatMap((link) => {
    try {
      const url = new URL(link);
      return url.protocol === 'https:' || url.protocol === 'http:' ? [url.origin] : [];
    } catch {
      return [];
    }
  });
}
