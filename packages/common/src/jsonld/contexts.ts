import activityAnchorsV1Json from './contexts/activityanchors-v1.json' with { type: 'json' };
import activityStreamsJson from './contexts/activitystreams.json' with { type: 'json' };
import bbsV1Json from './contexts/bbs-v1.json' with { type: 'json' };
import bitstringStatusListV1Json from './contexts/bitstring-status-list-v1.json' with { type: 'json' };
import credentialsUndefinedTermsV2Json from './contexts/credentials-undefined-terms-v2.json' with { type: 'json' };
import credentialsV1Json from './contexts/credentials-v1.json' with { type: 'json' };
import credentialsV2Json from './contexts/credentials-v2.json' with { type: 'json' };
import dataIntegrityV1Json from './contexts/data-integrity-v1.json' with { type: 'json' };
import dataIntegrityV2Json from './contexts/data-integrity-v2.json' with { type: 'json' };
import didResolutionV1Json from './contexts/did-resolution-v1.json' with { type: 'json' };
import didV1Json from './contexts/did-v1.json' with { type: 'json' };
import ed25519Signature2018V1Json from './contexts/ed25519-signature-2018-v1.json' with { type: 'json' };
import ed25519Signature2020V1Json from './contexts/ed25519-signature-2020-v1.json' with { type: 'json' };
import jws2020V1Json from './contexts/jws-2020-v1.json' with { type: 'json' };
import multikeyV1Json from './contexts/multikey-v1.json' with { type: 'json' };
import securityV1Json from './contexts/security-v1.json' with { type: 'json' };
import securityV2Json from './contexts/security-v2.json' with { type: 'json' };
import statusList2021V1Json from './contexts/status-list-2021-v1.json' with { type: 'json' };
import credentialsExamplesV1Json from './contexts/credentials-examples-v1.json' with { type: 'json' };
import credentialsExamplesV2Json from './contexts/credentials-examples-v2.json' with { type: 'json' };
import odrlJson from './contexts/odrl.json' with { type: 'json' };
import citizenshipV1Json from './contexts/citizenship-v1.json' with { type: 'json' };
import vaccinationV1Json from './contexts/vaccination-v1.json' with { type: 'json' };
import revocationList2020V1Json from './contexts/revocation-list-2020-v1.json' with { type: 'json' };
import trustblocExamplesV1Json from './contexts/trustbloc-examples-v1.json' with { type: 'json' };
import trustblocCredentialsV1Json from './contexts/trustbloc-credentials-v1.json' with { type: 'json' };
import type { ContextDocument } from './context-document.js';

// JSON imports are typed by their literal shape; every bundled file is a context document.
const asContext = (json: object): ContextDocument => json as ContextDocument;
const activityAnchorsV1 = asContext(activityAnchorsV1Json);
const activityStreams = asContext(activityStreamsJson);
const bbsV1 = asContext(bbsV1Json);
const bitstringStatusListV1 = asContext(bitstringStatusListV1Json);
const credentialsUndefinedTermsV2 = asContext(credentialsUndefinedTermsV2Json);
const credentialsV1 = asContext(credentialsV1Json);
const credentialsV2 = asContext(credentialsV2Json);
const dataIntegrityV1 = asContext(dataIntegrityV1Json);
const dataIntegrityV2 = asContext(dataIntegrityV2Json);
const didResolutionV1 = asContext(didResolutionV1Json);
const didV1 = asContext(didV1Json);
const ed25519Signature2018V1 = asContext(ed25519Signature2018V1Json);
const ed25519Signature2020V1 = asContext(ed25519Signature2020V1Json);
const jws2020V1 = asContext(jws2020V1Json);
const multikeyV1 = asContext(multikeyV1Json);
const securityV1 = asContext(securityV1Json);
const securityV2 = asContext(securityV2Json);
const statusList2021V1 = asContext(statusList2021V1Json);
const credentialsExamplesV1 = asContext(credentialsExamplesV1Json);
const credentialsExamplesV2 = asContext(credentialsExamplesV2Json);
const odrl = asContext(odrlJson);
const citizenshipV1 = asContext(citizenshipV1Json);
const vaccinationV1 = asContext(vaccinationV1Json);
const revocationList2020V1 = asContext(revocationList2020V1Json);
const trustblocExamplesV1 = asContext(trustblocExamplesV1Json);
const trustblocCredentialsV1 = asContext(trustblocCredentialsV1Json);

/**
 * Every JSON-LD context the system meets, bundled in `contexts/` (the JSON data copied verbatim from
 * the context packages of Digital Bazaar, the W3C CCG repositories and Orb's embedded copies of
 * the ActivityStreams and activity-anchors contexts, which Orb loads in preference to the web).
 * Nothing is ever fetched: a context that is not here is an error. Provenance of each file: contexts/README.md.
 */
export const CONTEXT_URLS = {
  credentialsV1: 'https://www.w3.org/2018/credentials/v1',
  credentialsV2: 'https://www.w3.org/ns/credentials/v2',
  credentialsUndefinedTermsV2: 'https://www.w3.org/ns/credentials/undefined-terms/v2',
  securityV1: 'https://w3id.org/security/v1',
  securityV2: 'https://w3id.org/security/v2',
  ed25519Signature2020V1: 'https://w3id.org/security/suites/ed25519-2020/v1',
  ed25519Signature2018V1: 'https://w3id.org/security/suites/ed25519-2018/v1',
  jws2020V1: 'https://w3id.org/security/suites/jws-2020/v1',
  dataIntegrityV1: 'https://w3id.org/security/data-integrity/v1',
  dataIntegrityV2: 'https://w3id.org/security/data-integrity/v2',
  multikeyV1: 'https://w3id.org/security/multikey/v1',
  bbsV1: 'https://w3id.org/security/bbs/v1',
  didV1: 'https://www.w3.org/ns/did/v1',
  didResolutionV1: 'https://w3id.org/did-resolution/v1',
  statusList2021V1: 'https://w3id.org/vc/status-list/2021/v1',
  bitstringStatusListV1: 'https://www.w3.org/ns/credentials/status/v1',
  activityStreams: 'https://www.w3.org/ns/activitystreams',
  activityAnchorsV1: 'https://w3id.org/activityanchors/v1',
  // What credentials a user meets every day name, and what the Go services' deployments load (aries' embedded set).
  credentialsExamplesV1: 'https://www.w3.org/2018/credentials/examples/v1',
  credentialsExamplesV2: 'https://www.w3.org/ns/credentials/examples/v2',
  odrl: 'https://www.w3.org/ns/odrl.jsonld',
  citizenshipV1: 'https://w3id.org/citizenship/v1',
  vaccinationV1: 'https://w3id.org/vaccination/v1',
  revocationList2020V1: 'https://w3id.org/vc-revocation-list-2020/v1',
  trustblocExamplesV1: 'https://trustbloc.github.io/context/vc/examples-v1.jsonld',
  trustblocCredentialsV1: 'https://trustbloc.github.io/context/vc/credentials-v1.jsonld',
} as const;

export type ContextName = keyof typeof CONTEXT_URLS;

export type { ContextDocument };

interface BundledContext {
  url: string;
  document: ContextDocument;
  /** Other URLs the same document is published or commonly referenced under. */
  aliases?: readonly string[];
}

const BUNDLED: readonly BundledContext[] = [
  { url: CONTEXT_URLS.credentialsV1, document: credentialsV1 },
  { url: CONTEXT_URLS.credentialsV2, document: credentialsV2 },
  { url: CONTEXT_URLS.credentialsUndefinedTermsV2, document: credentialsUndefinedTermsV2 },
  {
    url: CONTEXT_URLS.securityV1,
    document: securityV1,
    aliases: ['https://w3c-ccg.github.io/security-vocab/contexts/security-v1.jsonld'],
  },
  {
    url: CONTEXT_URLS.securityV2,
    document: securityV2,
    aliases: ['https://w3c-ccg.github.io/security-vocab/contexts/security-v2.jsonld'],
  },
  {
    url: CONTEXT_URLS.ed25519Signature2020V1,
    document: ed25519Signature2020V1,
    aliases: [
      'https://digitalbazaar.github.io/ed25519-signature-2020-context/contexts/ed25519-signature-2020-v1.jsonld',
    ],
  },
  {
    url: CONTEXT_URLS.ed25519Signature2018V1,
    document: ed25519Signature2018V1,
    aliases: [
      'https://digitalbazaar.github.io/ed25519-signature-2018-context/contexts/ed25519-signature-2018-v1.jsonld',
    ],
  },
  {
    url: CONTEXT_URLS.jws2020V1,
    document: jws2020V1,
    aliases: ['https://w3c-ccg.github.io/lds-jws2020/contexts/v1'],
  },
  { url: CONTEXT_URLS.dataIntegrityV1, document: dataIntegrityV1 },
  { url: CONTEXT_URLS.dataIntegrityV2, document: dataIntegrityV2 },
  { url: CONTEXT_URLS.multikeyV1, document: multikeyV1 },
  {
    url: CONTEXT_URLS.bbsV1,
    document: bbsV1,
    aliases: [
      'https://w3c.github.io/vc-di-bbs/contexts/v1',
      'https://w3c-ccg.github.io/ldp-bbs2020/contexts/v1',
      'https://w3id.org/security/suites/bls12381-2020/v1',
    ],
  },
  { url: CONTEXT_URLS.didV1, document: didV1, aliases: ['https://w3.org/ns/did/v1'] },
  {
    url: CONTEXT_URLS.didResolutionV1,
    document: didResolutionV1,
    aliases: ['https://w3c-ccg.github.io/did-resolution/contexts/did-resolution-v1.json'],
  },
  { url: CONTEXT_URLS.statusList2021V1, document: statusList2021V1 },
  { url: CONTEXT_URLS.bitstringStatusListV1, document: bitstringStatusListV1 },
  {
    url: CONTEXT_URLS.activityStreams,
    document: activityStreams,
    aliases: ['https://www.w3.org/ns/activitystreams.jsonld'],
  },
  {
    url: CONTEXT_URLS.activityAnchorsV1,
    document: activityAnchorsV1,
    aliases: ['https://trustbloc.github.io/activityanchors/contexts/v1'],
  },
  { url: CONTEXT_URLS.credentialsExamplesV1, document: credentialsExamplesV1 },
  { url: CONTEXT_URLS.credentialsExamplesV2, document: credentialsExamplesV2 },
  { url: CONTEXT_URLS.odrl, document: odrl, aliases: ['https://www.w3.org/ns/odrl/2/ODRL22.jsonld'] },
  {
    url: CONTEXT_URLS.citizenshipV1,
    document: citizenshipV1,
    aliases: ['https://w3c-ccg.github.io/citizenship-vocab/contexts/citizenship-v1.jsonld'],
  },
  {
    url: CONTEXT_URLS.vaccinationV1,
    document: vaccinationV1,
    aliases: ['https://w3c-ccg.github.io/vaccination-vocab/context/v1/index.json'],
  },
  {
    url: CONTEXT_URLS.revocationList2020V1,
    document: revocationList2020V1,
    aliases: ['https://w3c-ccg.github.io/vc-status-rl-2020/contexts/vc-revocation-list-2020/v1.jsonld'],
  },
  { url: CONTEXT_URLS.trustblocExamplesV1, document: trustblocExamplesV1 },
  { url: CONTEXT_URLS.trustblocCredentialsV1, document: trustblocCredentialsV1 },
];

/**
 * The lookup key of a context URL: `http:` and `https:` name the same context, and so do the forms with and
 * without a trailing slash (`.../contexts/v1/` is how GitHub Pages serves `.../contexts/v1`).
 */
export function contextLookupKey(url: string): string {
  let key = url.trim();
  if (key.startsWith('http://')) key = `https://${key.slice('http://'.length)}`;
  if (key.endsWith('/')) key = key.slice(0, -1);
  return key;
}

const BY_KEY: ReadonlyMap<string, BundledContext> = (() => {
  const byKey = new Map<string, BundledContext>();
  for (const context of BUNDLED) {
    for (const url of [context.url, ...(context.aliases ?? [])]) {
      const key = contextLookupKey(url);
      if (byKey.has(key)) throw new Error(`bundled context URL ${url} is listed twice`);
      byKey.set(key, context);
    }
  }
  return byKey;
})();

/** The bundled document for a context URL (or one of its aliases), if there is one. */
export function bundledContext(url: string): { url: string; document: ContextDocument } | undefined {
  const context = BY_KEY.get(contextLookupKey(url));
  return context && { url: context.url, document: context.document };
}

/** The canonical URLs of every bundled context. */
export function bundledContextUrls(): string[] {
  return BUNDLED.map((context) => context.url);
}
