import { badRequest } from '@anchor/common/errors';
import { formatHostPort, type HostPort } from '@anchor/common/config';

/**
 * Every URL and identifier this node mints, derived once from `--external-endpoint` and `--service-id`
 * (orb.md §1.4): one place, so ids in anchors, activities, CAS links and did:web documents always agree.
 */
export interface NodeUrls {
  /** Base URL without a trailing slash, e.g. `https://node1.example.com` or `http://127.0.0.1:8080`. */
  readonly externalEndpoint: string;
  /** `host[:port]` of the external endpoint. */
  readonly host: string;
  /** `host` with the port's colon written `%3A`, as did:web and did:node hints require. */
  readonly didHost: string;
  /** The ActivityPub service id: a URL, or a did:web DID. */
  readonly serviceId: string;
  /** Whether `serviceId` is a did:web DID (its keys are then published at `<servicePath>/did.json`). */
  readonly serviceIsDid: boolean;
  /** Path of the service endpoint (`/services/node`, or `/services/<name>` for a did:web service id). */
  readonly servicePath: string;
  /** Absolute URL of the service endpoint. */
  readonly serviceEndpoint: string;
  /** `did:web:<didHost>`: the domain DID whose document (`/.well-known/did.json`) carries the signing keys. */
  readonly domainDid: string;
  readonly identifiersEndpoint: string;
  readonly operationsEndpoint: string;
  /** `<external>/cas` (CAS objects are at `<casBase>/<hash>`). */
  readonly casBase: string;
  /** `<external>/vc` (anchor credentials are at `<vcBase>/<uuid>`). */
  readonly vcBase: string;
}

const SERVICE_DID = /^did:web:([^:]+)((?::[^:]+)+)$/;

export function nodeUrls(options: {
  hostUrl: HostPort;
  externalEndpoint?: string | undefined;
  serviceId?: string | undefined;
}): NodeUrls {
  const external = new URL(options.externalEndpoint ?? `http://${formatHostPort(options.hostUrl)}`);
  if (external.pathname !== '/' || external.search !== '' || external.hash !== '') {
    throw badRequest('--external-endpoint must be a scheme://host[:port] origin without path, query or fragment');
  }
  const externalEndpoint = external.origin;
  const host = external.host;
  const didHost = host.replace(':', '%3A');

  let serviceId = options.serviceId ?? `${externalEndpoint}/services/node`;
  let servicePath: string;
  const didMatch = SERVICE_DID.exec(serviceId);
  const serviceIsDid = serviceId.startsWith('did:');
  if (serviceIsDid) {
    if (!didMatch) throw badRequest('--service-id must be a URL or did:web:<host>:services:<name>');
    if (decodeURIComponent(didMatch[1] as string) !== host)
      throw badRequest('--service-id did:web host must be the external endpoint host');
    servicePath = (didMatch[2] as string).split(':').join('/');
    if (!/^\/services\/[^/]+$/.test(servicePath))
      throw badRequest('--service-id must be did:web:<host>:services:<name>');
  } else {
    const service = new URL(serviceId);
    if (service.origin !== externalEndpoint)
      throw badRequest('--service-id must share scheme and host with --external-endpoint');
    servicePath = service.pathname.replace(/\/$/, '');
    serviceId = `${externalEndpoint}${servicePath}`;
  }

  return {
    externalEndpoint,
    host,
    didHost,
    serviceId,
    serviceIsDid,
    servicePath,
    serviceEndpoint: `${externalEndpoint}${servicePath}`,
    domainDid: `did:web:${didHost}`,
    identifiersEndpoint: `${externalEndpoint}/sidetree/v1/identifiers`,
    operationsEndpoint: `${externalEndpoint}/sidetree/v1/operations`,
    casBase: `${externalEndpoint}/cas`,
    vcBase: `${externalEndpoint}/vc`,
  };
}
