import { parseHashlink } from '@anchor/common/encoding';
import { AppError, badRequest, notFound } from '@anchor/common/errors';
import type { Store } from '@anchor/common/storage';
import {
  buildJrd,
  JRD_PROPERTIES,
  ledgerTypeOf,
  type Jrd,
  type JrdLink,
  type WebFingerClient,
} from '@anchor/common/webfinger';
import { checkResourceHash } from '../cas/cas-store.js';
import type { NodeUrls } from '../identity/node-urls.js';
import type { DidAnchor } from '../operations/operation-records.js';
import type { ResolutionService } from '../resolution/resolution-service.js';
import type { LogSetting } from '../vct-client/log-setting.js';
import type { FederationView } from './federation-view.js';
import { LINK, MEDIA } from './well-known-documents.js';

export interface WebFingerDeps {
  urls: NodeUrls;
  /** did:node namespace and its aliases: the DIDs this node describes. */
  namespaces: readonly string[];
  /** `--discovery-domains`: other nodes' base URLs announced as alternates. */
  discoveryDomains: readonly string[];
  minResolvers: number;
  /** `--vct-enabled`: without it the node announces no log, as in Orb. */
  vctEnabled: boolean;
  logSetting: LogSetting;
  /** Reads the configured log's own WebFinger document (its ledger type). */
  webFinger: WebFingerClient;
  resolution: ResolutionService;
  didAnchors: Store<DidAnchor>;
  cas: { has(hash: string): Promise<boolean> };
  /** Where other nodes hold an anchor, from the Likes they sent back. */
  federation: FederationView;
}

/**
 * `GET /.well-known/webfinger?resource=<uri>` (spec "WebFinger resource values", orb.md §2.10): the five
 * kinds of resource a node describes. Anything else is a 404; a malformed DID or CAS hash is a 400.
 *
 * 1. the node (`<base>`, `<base>/`, the service id or endpoint, or `<base>/vct`, the log address older
 *    Orb versions announced): ledger type and a `vct` link when a log is configured;
 * 2. the identifiers endpoint: min-resolvers, self, alternates per discovery domain;
 * 3. the operations endpoint: self, alternates per discovery domain;
 * 4. a DID of this node's namespace: anchor origin and min-resolvers; self (its canonical identifiers URL),
 *    via (its latest anchor), service (this node's ActivityPub service), alternates (discovery domains and
 *    the nodes that Liked its anchor);
 * 5. `<base>/cas/<hash>` held here: self and alternates (discovery domains and nodes that hold it).
 */
export class WebFingerResources {
  private readonly nodeResources: ReadonlySet<string>;

  constructor(private readonly deps: WebFingerDeps) {
    const { urls } = deps;
    this.nodeResources = new Set([
      urls.externalEndpoint,
      `${urls.externalEndpoint}/`,
      urls.serviceId,
      urls.serviceEndpoint,
      `${urls.externalEndpoint}/vct`,
    ]);
  }

  async describe(resource: string): Promise<Jrd> {
    const { urls } = this.deps;
    if (this.nodeResources.has(resource)) return this.node(resource);
    if (resource === urls.identifiersEndpoint)
      return this.endpoint(resource, '/sidetree/v1/identifiers', {
        [JRD_PROPERTIES.minResolvers]: this.deps.minResolvers,
      });
    if (resource === urls.operationsEndpoint) return this.endpoint(resource, '/sidetree/v1/operations', {});
    if (resource.startsWith(`${urls.casBase}/`))
      return this.casResource(resource, resource.slice(urls.casBase.length + 1));
    if (this.deps.namespaces.some((namespace) => resource.startsWith(`${namespace}:`))) return this.did(resource);
    throw notFound(`resource ${resource} not found`);
  }

  private async node(resource: string): Promise<Jrd> {
    const links: JrdLink[] = [{ rel: LINK.self, type: MEDIA.jrd, href: resource }];
    const properties: Record<string, unknown> = {};
    const logUrl = this.deps.vctEnabled ? await this.deps.logSetting.get() : undefined;
    if (logUrl !== undefined) {
      links.push({ rel: LINK.vct, type: MEDIA.jrd, href: logUrl });
      const ledgerType = await this.logLedgerType(logUrl);
      if (ledgerType !== undefined) properties[JRD_PROPERTIES.ledgerType] = ledgerType;
    }
    return buildJrd({ subject: resource, properties, links });
  }

  /**
   * The ledger type the log announces (`vct-v1`); undefined when the log has no WebFinger entry for itself.
   * A log that does not answer is a 502: announcing no ledger type would tell peers this node keeps no log.
   */
  private async logLedgerType(logUrl: string): Promise<string | undefined> {
    try {
      return ledgerTypeOf(await this.deps.webFinger.lookup(new URL(logUrl).origin, logUrl));
    } catch (error) {
      if (AppError.is(error) && error.code === 'not_found') return undefined;
      throw new AppError(
        'bad_gateway',
        `the configured log ${logUrl} did not answer its WebFinger query: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  private endpoint(resource: string, path: string, properties: Record<string, unknown>): Jrd {
    return buildJrd({
      subject: resource,
      properties,
      links: [
        { rel: LINK.self, href: resource },
        ...this.deps.discoveryDomains.map((domain) => ({ rel: LINK.alternate, href: `${domain}${path}` })),
      ],
    });
  }

  private async casResource(resource: string, hash: string): Promise<Jrd> {
    if (hash === '' || hash.includes('/'))
      throw badRequest(`resource ${resource} does not name a CAS object (<base>/cas/<hash>)`);
    checkResourceHash(hash);
    if (!(await this.deps.cas.has(hash))) throw notFound(`resource ${resource} not found`);
    const alternates = unique([
      ...this.deps.discoveryDomains.map((domain) => `${domain}/cas/${hash}`),
      ...(await this.heldElsewhere(hash)),
    ]).filter((href) => href !== resource);
    return buildJrd({
      subject: resource,
      links: [
        { rel: LINK.self, type: MEDIA.ldJson, href: resource },
        ...alternates.map((href) => ({ rel: LINK.alternate, type: MEDIA.ldJson, href })),
      ],
    });
  }

  private async did(did: string): Promise<Jrd> {
    const { resolution, urls } = this.deps;
    const suffix = resolution.parse(did).suffix;
    const { result } = await resolution.resolve(did);
    const metadata = result.didDocumentMetadata as { canonicalId?: string; method?: { anchorOrigin?: string } };
    const latest = await this.deps.didAnchors.get(suffix);
    if (metadata.canonicalId === undefined || latest === undefined)
      throw notFound(`${did} is not anchored yet; WebFinger describes anchored DIDs`);
    const canonicalId = metadata.canonicalId;
    const alternateBases = unique([
      ...this.deps.discoveryDomains,
      ...originsOf(await this.heldElsewhere(parseHashlink(latest.anchor).resourceHash)),
    ]).filter((base) => base !== urls.externalEndpoint);
    return buildJrd({
      properties: {
        [JRD_PROPERTIES.anchorOrigin]: metadata.method?.anchorOrigin,
        [JRD_PROPERTIES.minResolvers]: this.deps.minResolvers,
      },
      links: [
        { rel: LINK.self, type: MEDIA.didLdJson, href: `${urls.identifiersEndpoint}/${canonicalId}` },
        { rel: LINK.via, type: MEDIA.ldJson, href: latest.anchor },
        { rel: LINK.service, type: MEDIA.activity, href: urls.serviceEndpoint },
        ...alternateBases.map((base) => ({
          rel: LINK.alternate,
          type: MEDIA.didLdJson,
          href: `${base}/sidetree/v1/identifiers/${canonicalId}`,
        })),
      ],
    });
  }

  /** `<base>/cas/<hash>` URLs of other nodes holding the content with this hash, from the Likes they sent. */
  private heldElsewhere(resourceHash: string): Promise<string[]> {
    return this.deps.federation.anchorAlternates(resourceHash);
  }
}

/** The http(s) origins of URLs (other schemes, such as ipfs:, name no node). */
function originsOf(urls: readonly string[]): string[] {
  return urls.flatMap((text) => {
    try {
      const url = new URL(text);
      return url.protocol === 'https:' || url.protocol === 'http:' ? [url.origin] : [];
    } catch {
      return [];
    }
  });
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
