import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { unauthorized } from '../errors/index.js';
import { bearer, call, serve } from './http.test-helpers.js';
import {
  createHttpApp,
  isAuthorized,
  parseTokenRules,
  requireAuthorization,
  requireToken,
  signedBy,
  type SignatureAuthenticator,
  type SignedRequestLike,
} from './index.js';

const TOKENS = { admin: 'ADMIN_TOKEN', read: 'READ_TOKEN' };
const RULES = parseTokenRules(
  [
    '/services/node/keys',
    '/services/node/outbox|admin&read|admin',
    '/services/node/.*|read&admin',
    '/sidetree/.*/operations|read&admin|admin',
    '/policy|read&admin|admin',
    '/loglevels||admin',
    '/healthcheck|admin',
  ],
  TOKENS,
);

/**
 * A stand-in for the httpsig module with the contract of `SignatureAuthenticator`: `Signature: good <actor>`
 * verifies (and records the raw body it was shown), `Signature: bad` is invalid (401), no header means
 * no signature.
 */
function fakeSignatures(): { authenticate: SignatureAuthenticator; seen: SignedRequestLike[] } {
  const seen: SignedRequestLike[] = [];
  return {
    seen,
    authenticate: async (request) => {
      const header = request.headers.signature;
      if (typeof header !== 'string') return undefined;
      seen.push(request);
      const [verdict, actor] = header.split(' ');
      if (verdict !== 'good' || !actor) throw unauthorized('invalid HTTP signature');
      return { actor, keyId: `${actor}/keys/main-key` };
    },
  };
}

const FOLLOWER = 'https://peer.example/services/node';
const STRANGER = 'https://stranger.example/services/node';

async function startApp() {
  const signatures = fakeSignatures();
  const http = createHttpApp({ auth: { rules: RULES, signatureAuthenticator: signatures.authenticate } });
  const echo = (req: Request, res: Response) => {
    res.json({ principal: req.principal, authorized: req.authorized });
  };
  http.routes.get('/services/node/keys/:id', echo);
  http.routes.get('/services/node/followers', echo);
  http.routes.get('/services/node/outbox/:id', echo);
  http.routes.post('/services/node/outbox', echo);
  http.routes.get('/sidetree/v1/operations', echo);
  http.routes.post('/sidetree/v1/operations', echo);
  http.routes.get('/open', echo);
  http.routes.post('/open', echo);
  http.routes.post('/policy', requireToken, echo);
  // Orb's outbox GET: everything for the authorised, public activities only for the others.
  http.selfAuthorizingRoutes.get('/services/node/outbox', async (req, res) => {
    const full = await isAuthorized(
      req,
      signedBy((actor) => actor === FOLLOWER),
    );
    res.json({ items: full ? ['public', 'private'] : ['public'], principal: req.principal });
  });
  // A collection readable by a token holder or by a signed follower, 401 for anyone else.
  http.selfAuthorizingRoutes.get('/services/node/witnesses', async (req, res) => {
    await requireAuthorization(
      req,
      signedBy(async (actor) => actor === FOLLOWER),
    );
    res.json({ items: ['w1'] });
  });
  const server = await serve(http.app);
  return { url: server.url, signatures };
}

describe('bearer-token rules over HTTP', () => {
  it('uses read tokens for GET and write tokens for POST', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/sidetree/v1/operations`, { headers: bearer('READ_TOKEN') })).status).toBe(200);
    expect(
      (await call(`${url}/sidetree/v1/operations`, { method: 'POST', headers: bearer('ADMIN_TOKEN') })).status,
    ).toBe(200);
    const readOnWrite = await call(`${url}/sidetree/v1/operations`, { method: 'POST', headers: bearer('READ_TOKEN') });
    expect(readOnWrite.status).toBe(401);
    expect(readOnWrite.json).toEqual({ message: 'invalid bearer token' });
    expect(readOnWrite.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(readOnWrite.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('accepts any of several tokens and names the principal', async () => {
    const { url } = await startApp();
    const admin = await call(`${url}/services/node/followers`, { headers: bearer('ADMIN_TOKEN') });
    const read = await call(`${url}/services/node/followers`, { headers: { authorization: 'bearer   READ_TOKEN' } });
    expect(admin.json).toEqual({ principal: { kind: 'token', name: 'admin' }, authorized: true });
    expect(read.json).toEqual({ principal: { kind: 'token', name: 'read' }, authorized: true });
  });

  it('performs no check where no token is defined for the path and method', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/open`)).json).toEqual({ principal: { kind: 'anonymous' }, authorized: true });
    expect((await call(`${url}/open`, { method: 'POST', headers: bearer('anything') })).status).toBe(200);
    // '/loglevels||admin' defines no read token.
    expect((await call(`${url}/loglevels`)).status).toBe(200);
  });

  it('lets the first matching rule win', async () => {
    const { url } = await startApp();
    // '/services/node/keys' (no tokens) precedes '/services/node/.*' (read&admin).
    expect((await call(`${url}/services/node/keys/main-key`)).status).toBe(200);
    expect((await call(`${url}/services/node/followers`)).status).toBe(401);
  });

  it('rejects a wrong token, a malformed header, and missing credentials with JSON 401s', async () => {
    const { url } = await startApp();
    const wrong = await call(`${url}/services/node/followers`, { headers: bearer('READ_TOKENX') });
    expect(wrong.status).toBe(401);
    const empty = await call(`${url}/services/node/followers`, { headers: { authorization: 'Bearer' } });
    expect(empty.status).toBe(401);
    expect(empty.json).toEqual({ message: 'invalid bearer token' });
    const missing = await call(`${url}/services/node/followers`);
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({ message: 'credentials required: a bearer token or an HTTP signature' });
    const basic = await call(`${url}/services/node/followers`, { headers: { authorization: 'Basic YTpi' } });
    expect(basic.status).toBe(401);
  });

  it('applies the rules to built-in routes', async () => {
    const { url } = await startApp();
    expect(
      (await call(`${url}/loglevels`, { method: 'POST', body: 'info', headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(401);
    expect((await call(`${url}/healthcheck`)).status).toBe(401);
    expect((await call(`${url}/healthcheck`, { headers: bearer('ADMIN_TOKEN') })).status).toBe(200);
  });

  it('cannot be bypassed by changing the case or percent-encoding the path', async () => {
    const { url } = await startApp();
    const upper = await call(`${url}/SERVICES/NODE/FOLLOWERS`);
    expect(upper.status).toBe(401);
    const encoded = await call(`${url}/services/node/follower%73`);
    expect([401, 404]).toContain(encoded.status);
    const encodedOpen = await call(`${url}/polic%79`, { method: 'POST' });
    expect(encodedOpen.status).toBe(404);
  });
});

describe('signature authentication when a token is required but missing', () => {
  it('authorises a request with a valid signature and passes it the exact body bytes', async () => {
    const { url, signatures } = await startApp();
    const body = '{"type":"Create",  "id":"x"}';
    const reply = await call(`${url}/sidetree/v1/operations`, {
      method: 'POST',
      headers: { signature: `good ${STRANGER}`, 'content-type': 'application/json' },
      body,
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      principal: { kind: 'signature', actor: STRANGER, keyId: `${STRANGER}/keys/main-key` },
      authorized: false,
    });
    expect(signatures.seen[0]?.rawBody?.toString('utf8')).toBe(body);
    expect(signatures.seen[0]?.originalUrl).toBe('/sidetree/v1/operations');
  });

  it('rejects an invalid signature with 401, even on an open path', async () => {
    const { url } = await startApp();
    const invalid = await call(`${url}/services/node/followers`, { headers: { signature: 'bad' } });
    expect(invalid.status).toBe(401);
    expect(invalid.json).toEqual({ message: 'invalid HTTP signature' });
    expect((await call(`${url}/open`, { headers: { signature: 'bad' } })).status).toBe(401);
  });

  it('rejects a request with neither token nor signature', async () => {
    const { url, signatures } = await startApp();
    expect((await call(`${url}/services/node/followers`)).status).toBe(401);
    expect(signatures.seen).toHaveLength(0);
  });

  it('identifies signers on open paths too (an inbox learns its sender)', async () => {
    const { url } = await startApp();
    const reply = await call(`${url}/open`, { method: 'POST', headers: { signature: `good ${FOLLOWER}` } });
    expect(reply.json).toMatchObject({ principal: { kind: 'signature', actor: FOLLOWER }, authorized: true });
  });

  it('does not accept a signature on token-only routes', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/policy`, { method: 'POST', headers: { signature: `good ${FOLLOWER}` } })).status).toBe(
      401,
    );
    expect((await call(`${url}/policy`, { method: 'POST', headers: bearer('ADMIN_TOKEN') })).status).toBe(200);
  });

  it('prefers a valid token over a signature, and rejects a wrong token even with a valid signature', async () => {
    const { url, signatures } = await startApp();
    const withToken = await call(`${url}/services/node/followers`, {
      headers: { ...bearer('READ_TOKEN'), signature: `good ${FOLLOWER}` },
    });
    expect(withToken.json).toMatchObject({ principal: { kind: 'token', name: 'read' } });
    expect(signatures.seen).toHaveLength(0);
    const wrongToken = await call(`${url}/services/node/followers`, {
      headers: { ...bearer('nope'), signature: `good ${FOLLOWER}` },
    });
    expect(wrongToken.status).toBe(401);
  });
});

describe('self-authorising routes', () => {
  it('let anonymous readers through to decide (outbox shows only public activities)', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/services/node/outbox`)).json).toEqual({
      items: ['public'],
      principal: { kind: 'anonymous' },
    });
    expect((await call(`${url}/services/node/outbox`, { headers: bearer('READ_TOKEN') })).json).toMatchObject({
      items: ['public', 'private'],
    });
    expect(
      (await call(`${url}/services/node/outbox`, { headers: { signature: `good ${FOLLOWER}` } })).json,
    ).toMatchObject({ items: ['public', 'private'] });
    expect(
      (await call(`${url}/services/node/outbox`, { headers: { signature: `good ${STRANGER}` } })).json,
    ).toMatchObject({ items: ['public'] });
  });

  it('still reject invalid credentials before the handler runs', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/services/node/outbox`, { headers: bearer('WRONG') })).status).toBe(401);
    expect((await call(`${url}/services/node/outbox`, { headers: { signature: 'bad' } })).status).toBe(401);
  });

  it('can require "token holder or signed follower"', async () => {
    const { url } = await startApp();
    expect((await call(`${url}/services/node/witnesses`, { headers: bearer('READ_TOKEN') })).status).toBe(200);
    expect((await call(`${url}/services/node/witnesses`, { headers: { signature: `good ${FOLLOWER}` } })).status).toBe(
      200,
    );
    const stranger = await call(`${url}/services/node/witnesses`, { headers: { signature: `good ${STRANGER}` } });
    expect(stranger.status).toBe(401);
    expect(stranger.json).toEqual({ message: 'not authorised for this resource' });
    expect((await call(`${url}/services/node/witnesses`)).status).toBe(401);
  });

  it('leave routes on the ordinary router protected', async () => {
    const { url } = await startApp();
    // POST outbox is on `routes`: write token admin, so an anonymous POST never reaches the handler.
    expect((await call(`${url}/services/node/outbox`, { method: 'POST' })).status).toBe(401);
    expect((await call(`${url}/services/node/outbox/1`)).status).toBe(401);
  });
});
