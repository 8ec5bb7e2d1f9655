import { randomUUID } from 'node:crypto';
import { badRequest, conflict } from '@anchor/common/errors';
import { CONTEXT_URLS, formatDateTimeStamp } from '@anchor/common/jsonld';
import { defineSchema, validate } from '@anchor/common/schemas';
import type { VctLog, VctReceipt } from '../anchoring/vct-log.js';
import type { VcsMetrics } from '../metrics.js';
import type { ProfileRecord } from '../profiles/profile-model.js';
import type { Profiles } from '../profiles/profiles.js';
import { JWS, PROOF_VALUE, representationName, type SignatureRepresentation } from '../profiles/signature-types.js';
import type { StatusLists } from '../credential-status/status-lists.js';
import { checkCredential, issuerIdOf, objectAt, type Credential } from './credential-model.js';
import type { ProofSigning, SigningRequest } from './proof-signing.js';

export interface IssueOptions {
  verificationMethod?: string;
  /** Deprecated by vc-rest in favour of verificationMethod, which wins when both are given. */
  assertionMethod?: string;
  proofPurpose?: string;
  created?: string;
  challenge?: string;
  domain?: string;
}

const DID_URL = { type: 'string', pattern: '^did:[a-z0-9]+:[^#]+#.+$', description: 'a DID URL did#key' } as const;
const DATE_TIME = { type: 'string', minLength: 1, description: 'an ISO 8601 date-time with a zone' } as const;
const ISSUE_OPTIONS = {
  type: 'object',
  properties: {
    verificationMethod: DID_URL,
    assertionMethod: DID_URL,
    proofPurpose: { type: 'string' },
    created: DATE_TIME,
    challenge: { type: 'string', minLength: 1 },
    domain: { type: 'string', minLength: 1 },
  },
} as const;

export const ISSUE_REQUEST = defineSchema<{ credential: Record<string, unknown>; options?: IssueOptions }>({
  $id: 'urn:anchor:schema:vcs:issue-credential',
  type: 'object',
  required: ['credential'],
  properties: { credential: { type: 'object', description: 'the credential to sign' }, options: ISSUE_OPTIONS },
});

export interface ComposeRequest {
  issuer?: string;
  subject?: string;
  types?: string[];
  issuanceDate?: string;
  expirationDate?: string;
  claims?: Record<string, unknown>;
  evidence?: Record<string, unknown>;
  termsOfUse?: Record<string, unknown> | Record<string, unknown>[];
  credentialFormat?: string;
  proofFormat?: 'jws' | 'proofValue';
  credentialFormatOptions?: { '@context'?: (string | Record<string, unknown>)[] };
  proofFormatOptions?: { kid?: string; proofPurpose?: string; created?: string };
}

export const COMPOSE_REQUEST = defineSchema<ComposeRequest>({
  $id: 'urn:anchor:schema:vcs:compose-credential',
  type: 'object',
  properties: {
    issuer: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9+.-]*:\\S+$', description: 'the issuer URI (a DID)' },
    subject: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9+.-]*:\\S+$', description: 'the subject URI (a DID)' },
    types: { type: 'array', items: { type: 'string', minLength: 1 } },
    issuanceDate: DATE_TIME,
    expirationDate: DATE_TIME,
    claims: { type: 'object' },
    evidence: { type: 'object' },
    termsOfUse: { anyOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }] },
    credentialFormat: { type: 'string' },
    proofFormat: { enum: ['jws', 'proofValue'], description: 'jws or proofValue' },
    credentialFormatOptions: {
      type: 'object',
      properties: { '@context': { type: 'array', items: { type: ['string', 'object'] } } },
    },
    proofFormatOptions: {
      type: 'object',
      properties: { kid: DID_URL, proofPurpose: { type: 'string' }, created: DATE_TIME },
    },
  },
});

export interface Issued {
  credential: Credential;
  receipt?: VctReceipt | undefined;
}

/**
 * Issues credentials for issuer profiles: the data model checked first, the issuer set as the profile says, status
 * entries allocated, the proof made with the profile's key, the credential indexed (revocation is by id) and, with
 * a log, added to it.
 */
export class CredentialIssuer {
  constructor(
    private readonly profiles: Profiles,
    private readonly signing: ProofSigning,
    private readonly status: StatusLists,
    private readonly log: VctLog | undefined,
    private readonly metrics: VcsMetrics,
  ) {}

  /** `POST /{profile}/credentials/issueCredential`. */
  async issue(profileName: string, body: unknown): Promise<Issued> {
    const profile = await this.profiles.get('issuer', profileName);
    const request = validate(ISSUE_REQUEST, body, { what: 'issue request' });
    const options = request.options ?? {};
    return this.issueChecked(profile, request.credential, {
      verificationMethod: options.verificationMethod ?? options.assertionMethod,
      proofPurpose: options.proofPurpose,
      created: options.created,
      challenge: options.challenge,
      domain: options.domain,
    });
  }

  /** `POST /{profile}/credentials/composeAndIssueCredential`. */
  async compose(profileName: string, body: unknown): Promise<Issued> {
    const profile = await this.profiles.get('issuer', profileName);
    const request = validate(COMPOSE_REQUEST, body, { what: 'compose request' });
    const representation = composedRepresentation(profile, request.proofFormat);
    if (representation !== profile.signatureRepresentation)
      throw badRequest(
        `proofFormat ${representationName(representation)} is not available with ${profile.signatureType}, which writes ${representationName(profile.signatureRepresentation)}`,
      );
    const types = ['VerifiableCredential', ...(request.types ?? []).filter((type) => type !== 'VerifiableCredential')];
    const credential: Record<string, unknown> = {
      '@context': [CONTEXT_URLS.credentialsV1, ...(request.credentialFormatOptions?.['@context'] ?? [])],
      type: types,
      ...(request.issuer !== undefined ? { issuer: { id: request.issuer } } : {}),
      issuanceDate: request.issuanceDate ?? formatDateTimeStamp(new Date()),
      ...(request.expirationDate !== undefined ? { expirationDate: request.expirationDate } : {}),
      credentialSubject: {
        ...(request.claims ?? {}),
        ...(request.subject !== undefined ? { id: request.subject } : {}),
      },
      ...(request.evidence !== undefined ? { evidence: request.evidence } : {}),
      ...(request.termsOfUse !== undefined ? { termsOfUse: request.termsOfUse } : {}),
    };
    const proofOptions = request.proofFormatOptions ?? {};
    return this.issueChecked(profile, credential, {
      verificationMethod: proofOptions.kid,
      proofPurpose: proofOptions.proofPurpose,
      created: proofOptions.created,
    });
  }

  /** The W3C VC-API's issue (`POST /credentials/issue`) on a configured profile. */
  async issueVcApi(profileName: string, body: unknown): Promise<Issued> {
    const request = objectAt(body, 'request');
    const options = request.options === undefined ? {} : objectAt(request.options, 'options');
    return this.issue(profileName, {
      credential: request.credential,
      ...(Object.keys(options).length ? { options: pickIssueOptions(options) } : {}),
    });
  }

  private async issueChecked(
    profile: ProfileRecord,
    input: Record<string, unknown>,
    signing: SigningRequest,
  ): Promise<Issued> {
    const started = process.hrtime.bigint();
    const { credential: checked, version } = checkCredential(input, 'credential', true);
    let credential: Credential = checked;
    // The 1.1 context does not define the issuer's name, so a 1.1 credential gets the bare DID.
    if (profile.overwriteIssuer || credential.issuer === undefined)
      credential = { ...credential, issuer: version === 2 ? { id: profile.did, name: profile.name } : profile.did };
    else await this.signing.requireOwnDid(profile, issuerIdOf(credential), 'credential.issuer');
    const statusEnabled = !profile.disableVCStatus;
    const indexed = statusEnabled || this.log !== undefined;
    // An id the service mints is new by construction; a given one is checked before any index or signature is spent.
    const minted = indexed && credential.id === undefined;
    if (minted) credential = { ...credential, id: `urn:uuid:${randomUUID()}` };
    const id = credential.id as string | undefined;
    if (id !== undefined && indexed && !minted && (await this.status.issued.get(id)))
      throw conflict(`a credential with id ${id} was issued already`);
    let refs: Awaited<ReturnType<StatusLists['allocate']>>['refs'] = [];
    if (statusEnabled) {
      const format = version === 1 ? 'StatusList2021' : 'BitstringStatusList';
      const allocated = await this.status.allocate(profile, format);
      refs = allocated.refs;
      const contexts =
        version === 1 && !credential['@context'].includes(CONTEXT_URLS.statusList2021V1)
          ? [CONTEXT_URLS.statusList2021V1]
          : [];
      credential = {
        ...credential,
        '@context': [...credential['@context'], ...contexts],
        credentialStatus: allocated.credentialStatus,
      };
    }
    const signed = await this.signing.sign(credential, profile, signing, 'assertionMethod');
    const receipt = this.log ? await this.log.add(signed) : undefined;
    if (id !== undefined && (refs.length > 0 || receipt)) {
      const stored = await this.status.recordIssued(id, {
        profile: profile.name,
        issued: formatDateTimeStamp(new Date()),
        status: refs,
        ...(receipt ? { receipt } : {}),
      });
      if (!stored) throw conflict(`a credential with id ${id} was issued already`);
    }
    this.metrics.issued.inc({ profile: profile.name });
    this.metrics.issueSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    return { credential: signed, receipt };
  }
}

/** compose's proofFormat: absent means jws where the profile's suite writes JWS (vc-rest's default); else the suite's one form. */
function composedRepresentation(
  profile: ProfileRecord,
  proofFormat: 'jws' | 'proofValue' | undefined,
): SignatureRepresentation {
  if (proofFormat === 'jws') return JWS;
  if (proofFormat === 'proofValue') return PROOF_VALUE;
  return profile.signatureRepresentation;
}

function pickIssueOptions(options: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of ['verificationMethod', 'proofPurpose', 'created', 'challenge', 'domain'])
    if (options[name] !== undefined) picked[name] = options[name];
  return picked;
}
