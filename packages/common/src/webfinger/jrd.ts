import { base64Decode } from '../encoding/index.js';
import { badRequest } from '../errors/index.js';

/**
 * WebFinger (RFC 7033) documents as the federation uses them: JRDs whose `properties` carry the
 * original's `https://trustbloc.dev/ns/...` names (a log's ledger type and public key, a node's minimum
 * resolver count and anchor origin) and whose `links` point at related resources.
 */
export const WEBFINGER_PATH = '/.well-known/webfinger';
export const JRD_MEDIA_TYPE = 'application/jrd+json';

/** The namespace every property name below lives under (the spec's `{ns_base}`). */
export const TRUSTBLOC_NS = 'https://trustbloc.dev/ns';

export const JRD_PROPERTIES = Object.freeze({
  /** Ledger type of a transparency log (`vct-v1`). */
  ledgerType: `${TRUSTBLOC_NS}/ledger-type`,
  /** Base64 (standard, padded) of a transparency log's public key bytes. */
  publicKey: `${TRUSTBLOC_NS}/public-key`,
  /** How many resolvers must agree on a DID document (an integer). */
  minResolvers: `${TRUSTBLOC_NS}/min-resolvers`,
  /** The anchor origin of a DID (a URI). */
  anchorOrigin: `${TRUSTBLOC_NS}/anchor-origin`,
});

/** The ledger type a VCT-compatible transparency log announces. */
export const LEDGER_TYPE_VCT_V1 = 'vct-v1';

export interface JrdLink {
  rel: string;
  type?: string;
  href?: string;
  template?: string;
  [member: string]: unknown;
}

export interface Jrd {
  subject?: string;
  aliases?: string[];
  properties?: Record<string, unknown>;
  links?: JrdLink[];
  [member: string]: unknown;
}

export interface JrdInput {
  subject?: string;
  aliases?: readonly string[];
  properties?: Readonly<Record<string, unknown>>;
  links?: readonly JrdLink[];
}

/**
 * A JRD with its members in the Go services' order (subject, properties, links) and its property names
 * sorted, as Go's map encoding writes them; empty members are left out (their `omitempty`).
 */
export function buildJrd(input: JrdInput): Jrd {
  const jrd: Jrd = {};
  if (input.subject !== undefined && input.subject !== '') jrd.subject = input.subject;
  if (input.aliases && input.aliases.length > 0) jrd.aliases = [...input.aliases];
  const names = Object.keys(input.properties ?? {}).sort();
  if (names.length > 0) jrd.properties = Object.fromEntries(names.map((name) => [name, input.properties?.[name]]));
  if (input.links && input.links.length > 0) jrd.links = input.links.map((link) => withoutEmptyMembers(link));
  return jrd;
}

/** The JRD a transparency log serves for one of its logs: ledger type `vct-v1`, its public key, a self link. */
export function transparencyLogJrd(subject: string, publicKey: Uint8Array): Jrd {
  return buildJrd({
    subject,
    properties: {
      [JRD_PROPERTIES.ledgerType]: LEDGER_TYPE_VCT_V1,
      [JRD_PROPERTIES.publicKey]: Buffer.from(publicKey).toString('base64'),
    },
    links: [{ rel: 'self', href: subject }],
  });
}

function withoutEmptyMembers(link: JrdLink): JrdLink {
  const copy: JrdLink = { rel: link.rel };
  for (const [name, value] of Object.entries(link)) if (value !== undefined && value !== '') copy[name] = value;
  return copy;
}

/** Checks the shape of a JRD received from a peer; a `bad_request` names what is wrong. */
export function parseJrd(value: unknown): Jrd {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('a WebFinger document must be a JSON object');
  const jrd = value as Record<string, unknown>;
  if (jrd.subject !== undefined && typeof jrd.subject !== 'string')
    throw badRequest('WebFinger subject must be a string');
  if (
    jrd.properties !== undefined &&
    (typeof jrd.properties !== 'object' || jrd.properties === null || Array.isArray(jrd.properties))
  ) {
    throw badRequest('WebFinger properties must be an object');
  }
  if (jrd.links !== undefined) {
    if (!Array.isArray(jrd.links)) throw badRequest('WebFinger links must be an array');
    jrd.links.forEach((link, index) => {
      if (typeof link !== 'object' || link === null || typeof (link as JrdLink).rel !== 'string') {
        throw badRequest(`WebFinger link ${index} must be an object with a string rel`);
      }
    });
  }
  return jrd as Jrd;
}

/** A property's value, or undefined. */
export function jrdProperty(jrd: Jrd, name: string): unknown {
  return jrd.properties?.[name];
}

/** The first link with this rel (and type, when given). */
export function findJrdLink(jrd: Jrd, rel: string, type?: string): JrdLink | undefined {
  return jrd.links?.find((link) => link.rel === rel && (type === undefined || link.type === type));
}

/** The ledger type a JRD announces (`vct-v1` for a transparency log), or undefined. */
export function ledgerTypeOf(jrd: Jrd): string | undefined {
  const value = jrdProperty(jrd, JRD_PROPERTIES.ledgerType);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The public key bytes a transparency log announces, or undefined when the property is absent. A value
 * that is not standard padded base64 is a `bad_request` (a log that cannot be verified is no log).
 */
export function publicKeyOf(jrd: Jrd): Buffer | undefined {
  const value = jrdProperty(jrd, JRD_PROPERTIES.publicKey);
  if (value === undefined) return undefined;
  try {
    if (typeof value !== 'string' || value === '') throw new TypeError('not a string');
    return base64Decode(value);
  } catch {
    throw badRequest(`WebFinger property ${JRD_PROPERTIES.publicKey} must be standard padded base64`);
  }
}

/** The WebFinger query URL for a resource at a host: `<origin>/.well-known/webfinger?resource=<resource>`. */
export function webFingerUrl(baseUrl: string, resource: string): string {
  let origin: string;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    throw badRequest(`invalid base URL ${JSON.stringify(baseUrl)}`);
  }
  if (origin === 'null') throw badRequest(`base URL ${JSON.stringify(baseUrl)} has no http(s) origin`);
  return `${origin}${WEBFINGER_PATH}?resource=${encodeURIComponent(resource)}`;
}
