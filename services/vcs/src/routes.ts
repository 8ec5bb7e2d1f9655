import { openApiRoute, type ApiInfo, type HttpApp, type RouteSpec } from '@anchor/common/http';
import { PROJECT_VERSION } from '@anchor/common/version';
import type { Handler } from '@anchor/common/http';
import { COMPOSE_REQUEST, ISSUE_REQUEST } from './credentials/issuer.js';
import { PROVE_REQUEST } from './credentials/holder.js';
import { VERIFY_CREDENTIAL_REQUEST, VERIFY_PRESENTATION_REQUEST } from './credentials/verifier.js';
import { HOLDER_PROFILE_REQUEST, ISSUER_PROFILE_REQUEST } from './profiles/profile-model.js';
import { STATUS_UPDATE_REQUEST } from './credential-status/status-update.js';
import type { VcsMode } from './vcs-options.js';

export const VCS_API_INFO: ApiInfo = {
  title: 'vcs',
  version: PROJECT_VERSION,
  description:
    'The verifiable credential service: issuer and holder profiles, issue and compose-and-issue, verification of credentials and presentations, status lists, and the W3C VC-API routes.',
};

export interface VcsHandlers {
  createIssuerProfile: Handler;
  getIssuerProfile: Handler;
  deleteIssuerProfile: Handler;
  createHolderProfile: Handler;
  getHolderProfile: Handler;
  deleteHolderProfile: Handler;
  issueCredential: Handler;
  composeAndIssueCredential: Handler;
  updateStatus: Handler;
  statusList: Handler;
  verifyCredential: Handler;
  verifyPresentation: Handler;
  provePresentation: Handler;
  vcApiIssue: Handler;
  vcApiVerifyCredential: Handler;
  vcApiVerifyPresentation: Handler;
  vcApiStatus: Handler;
}

const JSON_TYPES = ['application/json', 'application/ld+json'];
const PROFILE = { profile: 'the profile name' };
const ID = { id: 'the profile name' };
const json = (description: string) => ({ description, mediaType: 'application/json' });
const NO_PROFILE = '`issuer profile <name> not found`';

/**
 * Every HTTP route of the vcs, per mode: the kit's built-in routes, then the issuer (profiles, issue, compose,
 * status), verifier and holder routes and the W3C VC-API routes of the modes that serve them, the operator's
 * JSON-LD context routes, and `/openapi.json`.
 * The README's tables are rendered from it (`npm run docs`).
 */
export function vcsRoutes(
  http: HttpApp,
  mode: VcsMode,
  h: VcsHandlers,
  contextRoutes: readonly RouteSpec[],
): RouteSpec[] {
  const issuer = mode === 'issuer' || mode === 'combined';
  const verifier = mode === 'verifier' || mode === 'combined';
  const holder = mode === 'holder' || mode === 'combined';
  const routes: RouteSpec[] = [...http.builtinRoutes];
  if (issuer)
    routes.push(
      {
        method: 'POST',
        path: '/profile',
        auth: 'write',
        tag: 'issuer',
        summary: 'creates an issuer profile; without `did` a DID is created (did:node on `--node-url`, else did:key)',
        body: { mediaTypes: JSON_TYPES, schema: ISSUER_PROFILE_REQUEST },
        responses: {
          201: json(
            'the profile: name, uri, signatureType, signatureRepresentation, did, creator, created, didKeyType, disableVCStatus, overwriteIssuer, credentialStatusPurposes',
          ),
          400: 'a missing or bad field (`invalid issuer profile: ...`), a suite the key type cannot sign, a `did` that does not resolve or lacks `didKeyID` under assertionMethod, a `didPrivateKey` that is not its key',
          409: '`profile <name> already exists`',
          503: 'the node, the kms or a DID resolution is unavailable; a new did:node did not resolve within `--did-publish-timeout`',
        },
        handler: h.createIssuerProfile,
      },
      {
        method: 'GET',
        path: '/profile/:id',
        auth: 'read',
        tag: 'issuer',
        summary: 'an issuer profile',
        params: ID,
        responses: { 200: json('the profile'), 404: NO_PROFILE },
        handler: h.getIssuerProfile,
      },
      {
        method: 'DELETE',
        path: '/profile/:id',
        auth: 'write',
        tag: 'issuer',
        summary: 'deletes an issuer profile (its keys, lists and issued-credential index stay)',
        params: ID,
        responses: { 200: 'deleted (empty body)', 404: NO_PROFILE },
        handler: h.deleteIssuerProfile,
      },
      {
        method: 'POST',
        path: '/:profile/credentials/issueCredential',
        auth: 'write',
        tag: 'issuer',
        summary: 'checks a credential, adds its status entry and signs it with the profile key',
        params: PROFILE,
        body: { mediaTypes: JSON_TYPES, schema: ISSUE_REQUEST },
        responses: {
          201: json('the signed credential'),
          400: 'a data model error naming the field (`credential.issuanceDate must be ...`), bad options (`proofPurpose`, a verification method that is not the profile key or not under the purpose), an undefined JSON-LD term',
          404: NO_PROFILE,
          409: '`a credential with id <id> was issued already`',
          503: 'the kms, the node or the log is unavailable',
        },
        fast: true,
        handler: h.issueCredential,
      },
      {
        method: 'POST',
        path: '/:profile/credentials/composeAndIssueCredential',
        auth: 'write',
        tag: 'issuer',
        summary: 'builds a credential from its parts and signs it as issueCredential does',
        params: PROFILE,
        body: { mediaTypes: JSON_TYPES, schema: COMPOSE_REQUEST },
        responses: {
          201: json('the signed credential'),
          400: 'a bad field, a `proofFormat` the profile suite does not write, an undefined JSON-LD term in the claims',
          404: NO_PROFILE,
          503: 'the kms, the node or the log is unavailable',
        },
        fast: true,
        handler: h.composeAndIssueCredential,
      },
      {
        method: 'POST',
        path: '/:profile/credentials/status',
        auth: 'write',
        tag: 'issuer',
        summary: 'revokes, suspends or unsuspends a credential by id, answered once durable',
        params: PROFILE,
        body: { mediaTypes: JSON_TYPES, schema: STATUS_UPDATE_REQUEST },
        responses: {
          200: 'done (empty body)',
          400: 'a bad body, a purpose the credential has no entry for, an attempt to undo a revocation',
          404: '`credential <id> was not issued by profile <name>`; ' + NO_PROFILE,
        },
        handler: h.updateStatus,
      },
      {
        method: 'GET',
        path: '/:profile/status/:listId',
        auth: 'open',
        tag: 'issuer',
        summary: 'the signed status list credential (StatusList2021Credential or BitstringStatusListCredential)',
        params: { ...PROFILE, listId: 'the list id (from `statusListCredential`)' },
        responses: { 200: json('the list credential'), 404: 'unknown profile or list' },
        handler: h.statusList,
      },
      {
        method: 'POST',
        path: '/credentials/issue',
        auth: 'write',
        tag: 'vc-api',
        summary: 'W3C VC-API issue on the `--vc-api-profile` profile: `{"credential","options"?}`',
        body: { mediaTypes: JSON_TYPES },
        responses: {
          201: json('`{"verifiableCredential"}` (and `vctReceipt` with a log)'),
          400: 'as issueCredential',
          404: 'no `--vc-api-profile`, or it names no issuer profile',
        },
        fast: true,
        handler: h.vcApiIssue,
      },
      {
        method: 'POST',
        path: '/credentials/status',
        auth: 'write',
        tag: 'vc-api',
        summary:
          'W3C VC-API status update on the `--vc-api-profile` profile: `{"credentialId","credentialStatus":[{"type","status"}]}`',
        body: { mediaTypes: JSON_TYPES, schema: STATUS_UPDATE_REQUEST },
        responses: {
          200: 'done (empty body)',
          400: 'as /{profile}/credentials/status',
          404: 'unknown credential or no `--vc-api-profile`',
        },
        handler: h.vcApiStatus,
      },
    );
  if (verifier)
    routes.push(
      {
        method: 'POST',
        path: '/verifier/credentials',
        auth: 'write',
        tag: 'verifier',
        summary: 'runs the requested checks on a credential',
        body: { mediaTypes: JSON_TYPES, schema: VERIFY_CREDENTIAL_REQUEST },
        responses: {
          200: json('`{"checks":[...]}`: the checks that ran'),
          400: 'the failed checks `{"message","checks":[{"check","error","verificationMethod"?}]}` (`Revoked`, `Suspended`, a proof that does not verify, ...), or a malformed request or credential (`{"message"}` only)',
        },
        fast: true,
        handler: h.verifyCredential,
      },
      {
        method: 'POST',
        path: '/verifier/presentations',
        auth: 'write',
        tag: 'verifier',
        summary: 'runs the requested checks on a presentation and every credential it embeds',
        body: { mediaTypes: JSON_TYPES, schema: VERIFY_PRESENTATION_REQUEST },
        responses: {
          200: json('`{"checks":[...]}`'),
          400: 'the failed checks, or a malformed request or presentation',
        },
        fast: true,
        handler: h.verifyPresentation,
      },
      {
        method: 'POST',
        path: '/credentials/verify',
        auth: 'write',
        tag: 'vc-api',
        summary: 'W3C VC-API credential verification: `{"verifiableCredential","options"?}`',
        body: { mediaTypes: JSON_TYPES, schema: VERIFY_CREDENTIAL_REQUEST },
        responses: {
          200: json('`{"checks":[...],"warnings":[],"errors":[]}`'),
          400: '`{"message","checks":[...],"warnings":[],"errors":[...]}` naming the failed checks',
        },
        fast: true,
        handler: h.vcApiVerifyCredential,
      },
      {
        method: 'POST',
        path: '/presentations/verify',
        auth: 'write',
        tag: 'vc-api',
        summary: 'W3C VC-API presentation verification: `{"verifiablePresentation","options"?}`',
        body: { mediaTypes: JSON_TYPES, schema: VERIFY_PRESENTATION_REQUEST },
        responses: {
          200: json('`{"checks":[...],"warnings":[],"errors":[]}`'),
          400: 'the failed checks, as /credentials/verify',
        },
        fast: true,
        handler: h.vcApiVerifyPresentation,
      },
    );
  if (holder)
    routes.push(
      {
        method: 'POST',
        path: '/holder/profile',
        auth: 'write',
        tag: 'holder',
        summary:
          'creates a holder profile (DID created or checked as for issuer profiles, relationship authentication)',
        body: { mediaTypes: JSON_TYPES, schema: HOLDER_PROFILE_REQUEST },
        responses: {
          201: json(
            'the profile: name, signatureType, signatureRepresentation, did, creator, created, didKeyType, overwriteHolder',
          ),
          400: 'as POST /profile',
          409: '`profile <name> already exists`',
          503: 'as POST /profile',
        },
        handler: h.createHolderProfile,
      },
      {
        method: 'GET',
        path: '/holder/profile/:id',
        auth: 'read',
        tag: 'holder',
        summary: 'a holder profile',
        params: ID,
        responses: { 200: json('the profile'), 404: '`holder profile <name> not found`' },
        handler: h.getHolderProfile,
      },
      {
        method: 'DELETE',
        path: '/holder/profile/:id',
        auth: 'write',
        tag: 'holder',
        summary: 'deletes a holder profile',
        params: ID,
        responses: { 200: 'deleted (empty body)', 404: '`holder profile <name> not found`' },
        handler: h.deleteHolderProfile,
      },
      {
        method: 'POST',
        path: '/:profile/prove/presentations',
        auth: 'write',
        tag: 'holder',
        summary:
          'signs a presentation with the holder profile key (purpose authentication by default; holder set by `overwriteHolder` or when absent)',
        params: PROFILE,
        body: { mediaTypes: JSON_TYPES, schema: PROVE_REQUEST },
        responses: {
          201: json('the signed presentation'),
          400: 'a data model error naming the field, bad options',
          404: '`holder profile <name> not found`',
        },
        fast: true,
        handler: h.provePresentation,
      },
    );
  routes.push(...contextRoutes);
  routes.push(openApiRoute(VCS_API_INFO, routes));
  return routes;
}
