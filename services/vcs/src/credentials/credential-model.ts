import { badRequest } from '@anchor/common/errors';
import { CONTEXT_URLS, isDateTimeStamp } from '@anchor/common/jsonld';

export type VcVersion = 1 | 2;
export type Credential = Record<string, unknown> & { '@context': unknown[] };

/**
 * The checks of the W3C VC data model (1.1 or 2.0, by the first context) that come before any JSON-LD work: each
 * failure is one 400 naming the field, e.g. `credential.issuanceDate must be an ISO 8601 date-time with a zone`.
 * `issuerOptional`: the profile fills in the issuer.
 */
export function checkCredential(
  value: unknown,
  where = 'credential',
  issuerOptional = false,
): { credential: Credential; version: VcVersion } {
  const credential = objectAt(value, where);
  const contexts = credential['@context'];
  if (contexts === undefined) throw badRequest(`${where}.@context is required`);
  const list = Array.isArray(contexts) ? contexts : [contexts];
  const first = list[0];
  const version: VcVersion | undefined =
    first === CONTEXT_URLS.credentialsV1 ? 1 : first === CONTEXT_URLS.credentialsV2 ? 2 : undefined;
  if (version === undefined)
    throw badRequest(
      `${where}.@context must begin with ${CONTEXT_URLS.credentialsV1} or ${CONTEXT_URLS.credentialsV2}`,
    );
  list.forEach((entry, index) => {
    if (typeof entry !== 'string' && (typeof entry !== 'object' || entry === null || Array.isArray(entry)))
      throw badRequest(`${where}.@context[${index}] must be a URL or an object`);
  });
  checkTypes(credential.type, `${where}.type`, 'VerifiableCredential');
  if (credential.id !== undefined) checkUri(credential.id, `${where}.id`);
  if (credential.issuer === undefined) {
    if (!issuerOptional) throw badRequest(`${where}.issuer is required`);
  } else if (typeof credential.issuer === 'string') checkUri(credential.issuer, `${where}.issuer`);
  else checkUri(objectAt(credential.issuer, `${where}.issuer`).id, `${where}.issuer.id`);
  const subject = credential.credentialSubject;
  if (subject === undefined) throw badRequest(`${where}.credentialSubject is required`);
  const subjects = Array.isArray(subject) ? subject : [subject];
  if (subjects.length === 0) throw badRequest(`${where}.credentialSubject must not be empty`);
  subjects.forEach((entry, index) => {
    const at = Array.isArray(subject) ? `${where}.credentialSubject[${index}]` : `${where}.credentialSubject`;
    const item = objectAt(entry, at);
    if (item.id !== undefined) checkUri(item.id, `${at}.id`);
  });
  const [from, until] = version === 1 ? ['issuanceDate', 'expirationDate'] : ['validFrom', 'validUntil'];
  if (version === 1 && credential.issuanceDate === undefined) throw badRequest(`${where}.issuanceDate is required`);
  for (const field of version === 1
    ? ['issuanceDate', 'expirationDate']
    : ['validFrom', 'validUntil', 'issuanceDate', 'expirationDate']) {
    if (credential[field] !== undefined && !isDateTimeStamp(credential[field]))
      throw badRequest(
        `${where}.${field} must be an ISO 8601 date-time with a zone, not ${JSON.stringify(credential[field])}`,
      );
  }
  const start = credential[from as string];
  const end = credential[until as string];
  if (typeof start === 'string' && typeof end === 'string' && Date.parse(end) < Date.parse(start))
    throw badRequest(`${where}.${until} is before ${where}.${from}`);
  for (const field of ['credentialStatus', 'evidence', 'termsOfUse', 'credentialSchema', 'refreshService']) {
    const member = credential[field];
    if (member === undefined) continue;
    const entries = Array.isArray(member) ? member : [member];
    entries.forEach((entry, index) => {
      const at = Array.isArray(member) ? `${where}.${field}[${index}]` : `${where}.${field}`;
      const item = objectAt(entry, at);
      if (typeof item.type !== 'string' && !Array.isArray(item.type)) throw badRequest(`${at}.type is required`);
    });
  }
  return { credential: { ...credential, '@context': list }, version };
}

/** A presentation's data model checks (1.1 or 2.0); embedded credentials are checked by the verifier. */
export function checkPresentation(value: unknown, where = 'presentation'): Credential {
  const presentation = objectAt(value, where);
  const contexts = presentation['@context'];
  if (contexts === undefined) throw badRequest(`${where}.@context is required`);
  const list = Array.isArray(contexts) ? contexts : [contexts];
  if (list[0] !== CONTEXT_URLS.credentialsV1 && list[0] !== CONTEXT_URLS.credentialsV2)
    throw badRequest(
      `${where}.@context must begin with ${CONTEXT_URLS.credentialsV1} or ${CONTEXT_URLS.credentialsV2}`,
    );
  checkTypes(presentation.type, `${where}.type`, 'VerifiablePresentation');
  if (presentation.id !== undefined) checkUri(presentation.id, `${where}.id`);
  if (presentation.holder !== undefined) {
    if (typeof presentation.holder === 'string') checkUri(presentation.holder, `${where}.holder`);
    else checkUri(objectAt(presentation.holder, `${where}.holder`).id, `${where}.holder.id`);
  }
  const embedded = presentation.verifiableCredential;
  if (embedded !== undefined && !Array.isArray(embedded)) objectAt(embedded, `${where}.verifiableCredential`);
  return { ...presentation, '@context': list };
}

/** The issuer's id, whether the issuer is a URI or an object. */
export function issuerIdOf(credential: Record<string, unknown>): string | undefined {
  const issuer = credential.issuer;
  if (typeof issuer === 'string') return issuer;
  if (typeof issuer === 'object' && issuer !== null && typeof (issuer as { id?: unknown }).id === 'string')
    return (issuer as { id: string }).id;
  return undefined;
}

export function objectAt(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest(`${where} must be a JSON object`);
  return value as Record<string, unknown>;
}

function checkTypes(value: unknown, where: string, required: string): void {
  const types = Array.isArray(value) ? value : [value];
  if (value === undefined) throw badRequest(`${where} is required`);
  if (!types.every((type) => typeof type === 'string' && type.length > 0))
    throw badRequest(`${where} must be a string or an array of strings`);
  if (!types.includes(required)) throw badRequest(`${where} must include ${required}`);
}

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

function checkUri(value: unknown, where: string): void {
  if (typeof value !== 'string' || !URI.test(value))
    throw badRequest(`${where} must be a URI, not ${JSON.stringify(value)}`);
}
