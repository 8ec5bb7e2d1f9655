import { jsonBody, mountRoutes, type FastHandler, type FastRequest, type RouteSpec } from '@anchor/common/http';
import type { Feature } from '@anchor/common/service';
import type { Request, RequestHandler } from 'express';
import type { CoreFeature } from './core-feature.js';
import type { Issued } from './credentials/issuer.js';
import { verificationAnswer, type Verification } from './credentials/verifier.js';
import { badRequest, notFound } from '@anchor/common/errors';
import { publicProfile, type ProfileKind } from './profiles/profile-model.js';
import { vcsRoutes, type VcsHandlers } from './routes.js';
import { StatusListPublisher } from './status/status-list-publisher.js';
import { parseStatusUpdate } from './status/status-update.js';
import type { VcsContext } from './vcs-context.js';

/** The vcs's HTTP API (the routes of its mode, from the route table). */
/** `contextRoutes`: the operator's JSON-LD context routes (`@anchor/common/jsonld-contexts`). */
export function createApiFeature(ctx: VcsContext, core: CoreFeature, contextRoutes: readonly RouteSpec[]): Feature {
  const { config, http } = ctx;
  // Bodies are small and never revalidated; hashing each one for an ETag is wasted work.
  http.app.set('etag', false);
  const publisher = new StatusListPublisher(core.profiles, core.statusLists, core.signing);
  const param = (req: Request, name: string): string => String(req.params[name]);
  const fastParam = (req: FastRequest, name: string): string => String(req.params[name]);
  const vcApiProfile = (): string => {
    if (!config.vcApiProfile) throw notFound('no profile serves the VC-API issue and status routes (--vc-api-profile)');
    return config.vcApiProfile;
  };
  /** A fast route's JSON answer (the hot routes skip express; see the kit's `FastRoutes`). */
  const fastJson =
    (
      work: (
        req: FastRequest,
        body: unknown,
      ) => Promise<{ status?: number; json: unknown; headers?: Record<string, string> }>,
    ): FastHandler =>
    async (req) => {
      const answer = await work(req, jsonBody(req));
      return {
        contentType: 'application/json',
        body: JSON.stringify(answer.json),
        ...(answer.status !== undefined ? { status: answer.status } : {}),
        ...(answer.headers ? { headers: answer.headers } : {}),
      };
    };
  const issuedAnswer = (issued: Issued) => ({
    status: 201,
    json: issued.credential,
    ...(issued.receipt ? { headers: { 'VCT-Receipt': JSON.stringify(issued.receipt) } } : {}),
  });
  const updateStatus = async (profile: string, body: unknown): Promise<void> => {
    await core.profiles.get('issuer', profile);
    const update = parseStatusUpdate(body);
    for (const change of update.changes) {
      await core.statusLists.update(profile, update.credentialId, change.purpose, change.value);
      ctx.vcsMetrics.statusUpdates.inc({ purpose: change.purpose });
    }
  };
  const vcApiVerification = (result: Verification) => {
    const errors = result.failed.map((failure) => `${failure.check}: ${failure.error}`);
    if (errors.length > 0)
      throw badRequest(`verification failed: ${errors.join('; ')}`, {
        details: { checks: result.failed, warnings: [], errors },
      });
    return { json: { checks: result.passed, warnings: [], errors: [] } };
  };
  const profileHandlers = (kind: ProfileKind): [RequestHandler, RequestHandler, RequestHandler] => [
    async (req, res) => {
      const record = await core.profiles.create(kind, jsonBody(req));
      ctx.vcsMetrics.profilesCreated.inc({ kind, method: record.did.split(':')[1] ?? 'unknown' });
      res.status(201).json(publicProfile(record));
    },
    async (req, res) => {
      res.json(publicProfile(await core.profiles.get(kind, param(req, 'id'))));
    },
    async (req, res) => {
      await core.profiles.delete(kind, param(req, 'id'));
      res.status(200).end();
    },
  ];
  const [createIssuerProfile, getIssuerProfile, deleteIssuerProfile] = profileHandlers('issuer');
  const [createHolderProfile, getHolderProfile, deleteHolderProfile] = profileHandlers('holder');
  const handlers: VcsHandlers = {
    createIssuerProfile,
    getIssuerProfile,
    deleteIssuerProfile,
    createHolderProfile,
    getHolderProfile,
    deleteHolderProfile,
    issueCredential: fastJson(async (req, body) =>
      issuedAnswer(await core.issuer.issue(fastParam(req, 'profile'), body)),
    ),
    composeAndIssueCredential: fastJson(async (req, body) =>
      issuedAnswer(await core.issuer.compose(fastParam(req, 'profile'), body)),
    ),
    updateStatus: async (req, res) => {
      await updateStatus(param(req, 'profile'), jsonBody(req));
      res.status(200).end();
    },
    statusList: async (req, res) => {
      res.json(await publisher.signedList(param(req, 'profile'), param(req, 'listId')));
    },
    verifyCredential: fastJson(async (_req, body) => ({
      json: verificationAnswer(await core.verifier.verifyCredential(body)),
    })),
    verifyPresentation: fastJson(async (_req, body) => ({
      json: verificationAnswer(await core.verifier.verifyPresentation(body)),
    })),
    provePresentation: fastJson(async (req, body) => ({
      status: 201,
      json: await core.prover.prove(fastParam(req, 'profile'), body),
    })),
    vcApiIssue: fastJson(async (_req, body) => {
      const issued = await core.issuer.issueVcApi(vcApiProfile(), body);
      return {
        status: 201,
        json: { verifiableCredential: issued.credential, ...(issued.receipt ? { vctReceipt: issued.receipt } : {}) },
      };
    }),
    vcApiVerifyCredential: fastJson(async (_req, body) =>
      vcApiVerification(await core.verifier.verifyCredential(body)),
    ),
    vcApiVerifyPresentation: fastJson(async (_req, body) =>
      vcApiVerification(await core.verifier.verifyPresentation(body)),
    ),
    vcApiStatus: async (req, res) => {
      await updateStatus(vcApiProfile(), jsonBody(req));
      res.status(200).end();
    },
  };
  mountRoutes(http, vcsRoutes(http, config.mode ?? 'combined', handlers, contextRoutes));
  return { name: 'api' };
}
