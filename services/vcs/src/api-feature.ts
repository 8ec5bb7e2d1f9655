import { notFound } from '@anchor/common/errors';
import { mountRoutes, type RouteSpec } from '@anchor/common/http';
import type { Feature } from '@anchor/common/service';
import type { Request, RequestHandler, Response } from 'express';
import type { CoreFeature } from './core-feature.js';
import type { Issued } from './credentials/issuer.js';
import { verificationAnswer, type Verification } from './credentials/verifier.js';
import { badRequest } from '@anchor/common/errors';
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
  const vcApiProfile = (): string => {
    if (!config.vcApiProfile) throw notFound('no profile serves the VC-API issue and status routes (--vc-api-profile)');
    return config.vcApiProfile;
  };
  const sendIssued = (res: Response, issued: Issued): void => {
    if (issued.receipt) res.setHeader('VCT-Receipt', JSON.stringify(issued.receipt));
    res.status(201).json(issued.credential);
  };
  const updateStatus = async (profile: string, body: unknown): Promise<void> => {
    await core.profiles.get('issuer', profile);
    const update = parseStatusUpdate(body);
    for (const change of update.changes) {
      await core.statusLists.update(profile, update.credentialId, change.purpose, change.value);
      ctx.vcsMetrics.statusUpdates.inc({ purpose: change.purpose });
    }
  };
  const vcApiVerification = (res: Response, result: Verification): void => {
    const errors = result.failed.map((failure) => `${failure.check}: ${failure.error}`);
    if (errors.length > 0)
      throw badRequest(`verification failed: ${errors.join('; ')}`, { details: { checks: result.failed, warnings: [], errors } });
    res.json({ checks: result.passed, warnings: [], errors: [] });
  };
  const profileHandlers = (kind: ProfileKind): [RequestHandler, RequestHandler, RequestHandler] => [
    async (req, res) => {
      const record = await core.profiles.create(kind, req.body);
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
    issueCredential: async (req, res) => sendIssued(res, await core.issuer.issue(param(req, 'profile'), req.body)),
    composeAndIssueCredential: async (req, res) => sendIssued(res, await core.issuer.compose(param(req, 'profile'), req.body)),
    updateStatus: async (req, res) => {
      await updateStatus(param(req, 'profile'), req.body);
      res.status(200).end();
    },
    statusList: async (req, res) => {
      res.json(await publisher.signedList(param(req, 'profile'), param(req, 'listId')));
    },
    verifyCredential: async (req, res) => {
      res.json(verificationAnswer(await core.verifier.verifyCredential(req.body)));
    },
    verifyPresentation: async (req, res) => {
      res.json(verificationAnswer(await core.verifier.verifyPresentation(req.body)));
    },
    provePresentation: async (req, res) => {
      res.status(201).json(await core.prover.prove(param(req, 'profile'), req.body));
    },
    vcApiIssue: async (req, res) => {
      const issued = await core.issuer.issueVcApi(vcApiProfile(), req.body);
      res.status(201).json({ verifiableCredential: issued.credential, ...(issued.receipt ? { vctReceipt: issued.receipt } : {}) });
    },
    vcApiVerifyCredential: async (req, res) => vcApiVerification(res, await core.verifier.verifyCredential(req.body)),
    vcApiVerifyPresentation: async (req, res) => vcApiVerification(res, await core.verifier.verifyPresentation(req.body)),
    vcApiStatus: async (req, res) => {
      await updateStatus(vcApiProfile(), req.body);
      res.status(200).end();
    },
  };
  mountRoutes(http, vcsRoutes(http, config.mode ?? 'combined', handlers, contextRoutes));
  return { name: 'api' };
}
