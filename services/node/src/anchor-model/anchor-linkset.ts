import {
  canonicalBytes,
  dataUriEncodingOf,
  decodeDataUri,
  encodeDataUri,
  multibaseMultihash,
  parseHashlink,
  UNPUBLISHED_ANCHOR,
  type DataUriEncoding,
} from '@anchor/common/encoding';
import { permanent } from '@anchor/common/errors';
import { profileVersion } from '@anchor/sidetree';

/**
 * The anchor linkset, byte for byte as Orb builds it (orb.md §2.4; Orb's `linkset`,
 * `anchorlinkset` and `didorbgenerator` packages). Everything here is pure: JSON in, JSON out; the
 * canonical bytes of every part are JCS.
 *
 * - content object ("original"): `{"linkset":[{"anchor":"hl:<core index hash>","author":[{"href":<service>}],
 *   "item":[{"href":"<ns>:uAAA:<suffix>"} | {"href":"<ns>:<prev hash>:<suffix>","previous":["hl:<prev hash>"]}],
 *   "profile":[{"href":"https://w3id.org/orb#v0"}]}]}`;
 * - `anchor` = `hl:` + hash of the canonical content object;
 * - "related": `{"linkset":[{"anchor":<anchor>,"profile":[…],"up":[{"href":<parent anchor hashlinks>}],"via":[{"href":<core index hashlink>}]}]}`;
 * - "replies": the anchor credential;
 * - the anchor link `{anchor, author, profile, original, related, replies}`, each reference a data URI
 *   (gzip + base64, or form-escaped JSON) with its media type; the anchor linkset is `{"linkset":[link]}`.
 */
/** The profile of protocol v1.0 anchors; an anchor written under another version names that one (`anchorProfile`). */
export const ANCHOR_PROFILE = 'https://w3id.org/orb#v0';
export const LINKSET_MEDIA_TYPE = 'application/linkset+json';
export const JSONLD_MEDIA_TYPE = 'application/ld+json';

export interface Href {
  href: string;
}

export interface TypedReference {
  href: string;
  type: string;
}

export interface ContentItem {
  href: string;
  previous?: string[];
}

export interface ContentObject {
  linkset: [{ anchor: string; author: Href[]; item: ContentItem[]; profile: Href[] }];
}

export interface RelatedLinkset {
  linkset: [{ anchor: string; profile: Href[]; up?: Href[]; via: Href[] }];
}

export interface AnchorLink {
  anchor: string;
  author: Href[];
  profile: Href[];
  original: TypedReference[];
  related: TypedReference[];
  replies: TypedReference[];
}

export interface AnchorLinkset {
  linkset: AnchorLink[];
}

/** A DID of the batch and the hashlink (`hl:<hash>:<links>`) of its latest earlier anchor, if any. */
export interface SuffixAnchor {
  suffix: string;
  previous?: string;
}

export function buildContentObject(input: {
  coreIndexHashlink: string;
  author: string;
  items: readonly SuffixAnchor[];
  namespace: string;
  /** The anchor profile of the protocol version the batch is written under (default v1.0's). */
  profile?: string;
}): ContentObject {
  const { resourceHash } = parseHashlink(input.coreIndexHashlink);
  const item = input.items.map(({ suffix, previous }): ContentItem => {
    if (previous === undefined) return { href: `${input.namespace}:${UNPUBLISHED_ANCHOR}:${suffix}` };
    const previousHash = parseHashlink(previous).resourceHash;
    return { href: `${input.namespace}:${previousHash}:${suffix}`, previous: [`hl:${previousHash}`] };
  });
  // The core index's hashlink metadata (where to fetch it) is mutable, so the content names only its hash;
  // the full hashlink goes into "related" (`via`).
  return {
    linkset: [
      {
        anchor: `hl:${resourceHash}`,
        author: [{ href: input.author }],
        item,
        profile: [{ href: input.profile ?? ANCHOR_PROFILE }],
      },
    ],
  };
}

/** `hl:<hash>` of the canonical content object: the anchor link's `anchor` and the credential subject's `href`. */
export function contentAnchor(content: ContentObject): string {
  return `hl:${multibaseMultihash(canonicalBytes(content))}`;
}

/** Parent anchors: the distinct previous anchors of the batch, in batch order. */
export function parentsOf(items: readonly SuffixAnchor[]): string[] {
  return [
    ...new Set(items.map((item) => item.previous).filter((previous): previous is string => previous !== undefined)),
  ];
}

export function buildRelatedLinkset(input: {
  anchor: string;
  coreIndexHashlink: string;
  parents: readonly string[];
  profile?: string;
}): RelatedLinkset {
  const link: RelatedLinkset['linkset'][0] = {
    anchor: input.anchor,
    profile: [{ href: input.profile ?? ANCHOR_PROFILE }],
    via: [{ href: input.coreIndexHashlink }],
  };
  if (input.parents.length > 0) link.up = input.parents.map((href) => ({ href }));
  return { linkset: [link] };
}

export function buildAnchorLink(input: {
  content: ContentObject;
  author: string;
  coreIndexHashlink: string;
  parents: readonly string[];
  credential: object;
  encoding: DataUriEncoding;
}): AnchorLink {
  const anchor = contentAnchor(input.content);
  // Every part names the profile the content object was written under.
  const profile = input.content.linkset[0].profile[0]?.href ?? ANCHOR_PROFILE;
  const related = buildRelatedLinkset({
    anchor,
    coreIndexHashlink: input.coreIndexHashlink,
    parents: input.parents,
    profile,
  });
  return {
    anchor,
    author: [{ href: input.author }],
    profile: [{ href: profile }],
    original: [{ href: encodeDataUri(canonicalBytes(input.content), input.encoding), type: LINKSET_MEDIA_TYPE }],
    related: [{ href: encodeDataUri(canonicalBytes(related), input.encoding), type: LINKSET_MEDIA_TYPE }],
    replies: [{ href: encodeDataUri(canonicalBytes(input.credential), input.encoding), type: JSONLD_MEDIA_TYPE }],
  };
}

/** The data URI encoding of a `--anchor-data-uri-media-type` value. */
export function dataUriEncodingFor(mediaType: 'application/gzip;base64' | 'application/json'): DataUriEncoding {
  return mediaType === 'application/json' ? 'json' : 'gzip';
}

/** An anchor linkset taken apart and checked: what the observer works from. */
export interface ReadAnchor {
  link: AnchorLink;
  /** The anchor link's `anchor`: `hl:<hash of the content object>`. */
  anchor: string;
  author: string;
  content: ContentObject;
  /** The batch's DIDs in content order, with the previous anchor hash each names. */
  items: Array<{ suffix: string; previousHash: string | undefined }>;
  /** `via`: the core index file's hashlink (with the links to fetch it). */
  coreIndexHashlink: string;
  /** `up`: parent anchor hashlinks. */
  parents: string[];
  /** The anchor credential from `replies`. */
  credential: Record<string, unknown>;
  /** The anchor profile (`https://w3id.org/orb#v<genesis time>`) and the protocol version it names. */
  profile: string;
  protocolVersion: number;
}

/**
 * Reads and validates an anchor linkset (Orb's `Link.Validate` plus `GetPayloadFromAnchorLink`,
 * and the `replies` check it skips): one link; hashlink anchor; author and an orb#v<genesis time> profile
 * (which protocol version reads the batch is the observer's business; a witness signs any); `original`
 * hashing to `anchor`; `related` naming the same anchor with a core index `via` that the content's anchor
 * names; items naming DIDs of `namespace`. Every problem is a permanent (non-retryable) error.
 */
export function readAnchorLinkset(linkset: unknown, namespace: string): ReadAnchor {
  const links = objectOf(linkset, 'anchor linkset').linkset;
  if (!Array.isArray(links) || links.length !== 1) throw invalid('an anchor linkset holds exactly one link');
  const link = objectOf(links[0], 'anchor link') as unknown as AnchorLink;
  const anchor = hashlinkOf(link.anchor, 'anchor');
  const author = firstHref(link.author, 'author');
  const profile = firstHref(link.profile, 'profile');
  const protocolVersion = profileVersion(profile);
  if (protocolVersion === undefined) throw invalid(`unsupported anchor profile '${profile}'`);

  const originalBytes = referenceContent(link.original, 'original', LINKSET_MEDIA_TYPE);
  if (multibaseMultihash(originalBytes) !== parseHashlink(anchor).resourceHash)
    throw invalid("the 'original' content does not match the anchor hash");
  const content = jsonOf(originalBytes, 'original') as unknown as ContentObject;
  const contentLink = objectOf(
    Array.isArray(content.linkset) && content.linkset.length === 1 ? content.linkset[0] : undefined,
    'content object link',
  );
  if (firstHref(contentLink.profile, 'content profile') !== profile)
    throw invalid(`the content object's profile is not the anchor's (${profile})`);

  const related = jsonOf(
    referenceContent(link.related, 'related', LINKSET_MEDIA_TYPE),
    'related',
  ) as unknown as RelatedLinkset;
  const relatedLink = objectOf(
    Array.isArray(related.linkset) && related.linkset.length === 1 ? related.linkset[0] : undefined,
    "'related' link",
  );
  if (relatedLink.anchor !== anchor)
    throw invalid(`anchor of the 'related' linkset [${String(relatedLink.anchor)}] is not the anchor [${anchor}]`);
  const coreIndexHashlink = hashlinkOf(firstHref(relatedLink.via, "'related' via"), "'related' via");
  if (contentLink.anchor !== `hl:${parseHashlink(coreIndexHashlink).resourceHash}`)
    throw invalid(`core index [${coreIndexHashlink}] is not the one the content object anchors`);
  const parents =
    relatedLink.up === undefined
      ? []
      : hrefsOf(relatedLink.up, "'related' up").map((href) => hashlinkOf(href, "'related' up"));

  const credential = jsonOf(referenceContent(link.replies, 'replies', JSONLD_MEDIA_TYPE), 'replies');
  const itemList = contentLink.item;
  if (!Array.isArray(itemList) || itemList.length === 0) throw invalid('the content object lists no DIDs');
  const prefix = `${namespace}:`;
  const items = itemList.map((entry, index) => {
    const href = objectOf(entry, `content item ${index}`).href;
    if (typeof href !== 'string' || !href.startsWith(prefix))
      throw invalid(`content item ${index} is not a ${namespace} DID`);
    const parts = href.slice(prefix.length).split(':');
    if (parts.length !== 2) throw invalid(`content item ${index} '${href}' is not <anchor hash or uAAA>:<suffix>`);
    const [hint, suffix] = parts as [string, string];
    return { suffix, previousHash: hint === UNPUBLISHED_ANCHOR ? undefined : hint };
  });
  return { link, anchor, author, content, items, coreIndexHashlink, parents, credential, profile, protocolVersion };
}

function invalid(message: string): Error {
  return permanent(`invalid anchor linkset: ${message}`);
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function hrefsOf(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw invalid(`${what} must be an array of {href}`);
  return value.map((entry) => {
    const href = objectOf(entry, what).href;
    if (typeof href !== 'string') throw invalid(`${what} needs string hrefs`);
    return href;
  });
}

function firstHref(value: unknown, what: string): string {
  const [first] = hrefsOf(value, what);
  if (first === undefined) throw invalid(`${what} is required`);
  return first;
}

function hashlinkOf(value: unknown, what: string): string {
  if (typeof value !== 'string') throw invalid(`${what} must be a hashlink`);
  try {
    parseHashlink(value);
  } catch (error) {
    throw invalid(`${what} is not a valid hashlink: ${(error as Error).message}`);
  }
  return value;
}

function referenceContent(value: unknown, what: string, mediaType: string): Buffer {
  if (!Array.isArray(value) || value.length !== 1) throw invalid(`'${what}' must hold exactly one reference`);
  const reference = objectOf(value[0], `'${what}' reference`);
  if (reference.type !== mediaType) throw invalid(`the type of the '${what}' reference should be ${mediaType}`);
  if (typeof reference.href !== 'string' || dataUriEncodingOf(reference.href) === undefined)
    throw invalid(`'${what}' must be a data URI`);
  try {
    return decodeDataUri(reference.href);
  } catch (error) {
    throw invalid(`'${what}' cannot be decoded: ${(error as Error).message}`);
  }
}

function jsonOf(bytes: Buffer, what: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw invalid(`'${what}' is not JSON: ${(error as Error).message}`);
  }
  return objectOf(json, `'${what}'`);
}
