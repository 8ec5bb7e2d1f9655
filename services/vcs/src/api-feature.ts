import { answer, jsonBody, mountRoutes, type Handler, type RouteRequest, type RouteSpec } from '@anchor/common/http';
import type { Feature } from '@anchor/common/service';
import type { CoreFeature } from './core-feature.js';
import type { Issued } from './credentials/issuer.js';
import { verificationAnswer, type Verification } from './credentials/verifier.js';
import { badRequest, notFound } from '@anchor/common/errors';
import { publicProfile, type ProfileKind } from './profiles/profile-model.js';
import { vcsRoutes, type VcsHandlers } from './routes.js';
import { StatusListPublisher } from './credential-status/status-list-publisher.js';
import { parseStatusUpdate } from './credential-status/status-update.js';
import type { VcsContext } from './vcs-context.js';

/** The vcs's HTTP API (the routes of its mode, from the route table). */
/** `contextRoutes`: the operator's JSON-LD context routes (`@anchor/common/jsonld-contexts`). */
export function createApiFeature(ctx: VcsContext, core: CoreFeature, contextRoutes: readonly RouteSpec[]): Feature {
  const { config, http } = ctx;
  // Bodies are small and never revalidated; hashing each one for an ETag is wasted work.
  http.app.set('etag', false);
  const publisher = new StatusListPublisher(core.profiles, core.statusLists, core.signing);
  const param = (req: RouteRequest, name: string): string => String(req.params[name]);
  const vcApiProfile = (): string => {
    if (!config.vcApiProfile) throw notFound('no profile serves the VC-API issue and status routes (--vc-api-profile)');
    return config.vcApiProfile;
  };
  /** A handler of a JSON body with a JSON answer. */
  const jsonHandler =
    (
      work: (
        req: RouteRequest,
        body: unknown,
      ) => Promise<{ status?: number; json: unknown; headers?: Record<string, string> }>,
    ): Handler =>
    async (req) => {
      const { status, json, headers } = await work(req, jsonBody(req));
      return answer({ json, ...(status !== undefined ? { status } : {}), ...(headers ? { headers } : {}) });
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
  const profileHandlers = (kind: ProfileKind): [Handler, Handler, Handler] => [
    async (req) => {
      const record = await core.profiles.create(kind, jsonBody(req));
      ctx.vcsMetrics.profilesCreated.inc({ kind, method: record.did.split(':')[1] ?? 'unknown' });
      return answer({ json: publicProfile(record), status: 201 });
    },
    async (req) => answer({ json: publicProfile(await core.profiles.get(kind, param(req, 'id'))) }),
    async (req) => {
      await core.profiles.delete(kind, param(req, 'id'));
      return answer({ status: 200 });
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
    issueCredential: jsonHandler(async (req, body) =>
      issuedAnswer(await core.issuer.issue(param(req, 'profile'), body)),
    ),
    composeAndIssueCredential: jsonHandler(async (req, body) =>
      issuedAnswer(await core.issuer.compose(param(req, 'profile'), body)),
    ),
    updateStatus: async (req) => {
      await updateStatus(param(req, 'profile'), jsonBody(req));
      return answer({ status: 200 });
    },
    statusList: async (req) =>
      answer({ json: await publisher.signedList(param(req, 'profile'), param(req, 'listId')) }),
    verifyCredential: jsonHandler(async (_req, body) => ({
      json: verificationAnswer(await core.verifier.verifyCredential(body)),
    })),
    verifyPresentation: jsonHandler(async (_req, body) => ({
      json: verificationAnswer(await core.verifier.verifyPresentation(body)),
    })),
    provePresentation: jsonHandler(async (req, body) => ({
      status: 201,
      json: await core.prover.prove(param(req, 'profile'), body),
    })),
    vcApiIssue: jsonHandler(async (_req, body) => {
      const issued = await core.issuer.issueVcApi(vcApiProfile(), body);
      return {
        status: 201,
        json: { verifiableCredential: issued.credential, ...(issued.receipt ? { vctReceipt: issued.receipt } : {}) },
      };
    }),
    vcApiVerifyCredential: jsonHandler(async (_req, body) =>
      vcApiVerification(await core.verifier.verifyCredential(body)),
    ),
    vcApiVerifyPresentation: jsonHandler(async (_req, body) =>
      vcApiVerification(await core.verifier.verifyPresentation(body)),
    ),
    vcApiStatus: async (req) => {
      await updateStatus(vcApiProfile(), jsonBody(req));
      return answer({ status: 200 });
    },
  };
  mountRoutes(http, vcsRoutes(http, config.mode ?? 'combined', handlers, contextRoutes));
  return { name: 'api' };
}
