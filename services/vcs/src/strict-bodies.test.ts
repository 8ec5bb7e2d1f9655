import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialV1, issue, issuerProfile, startTestVcs, type TestVcs } from './vcs.test-helpers.js';

/** A raw POST: the exact text and Content-Type header given (fetch cannot send some of them). */
function post(
  url: string,
  text: string,
  contentType: string | undefined,
): Promise<{ status: number; body: { message?: string } & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    const request = http.request(url, { method: 'POST', headers }, (response) => {
      let received = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (received += chunk));
      response.on('end', () => {
        let body: unknown = received;
        try {
          body = JSON.parse(received);
        } catch {
          // not JSON
        }
        resolve({ status: response.statusCode ?? 0, body: body as { message?: string } & Record<string, unknown> });
      });
    });
    request.on('error', reject);
    request.end(text);
  });
}

describe('vcs request bodies: one strict reader, one Content-Type rule', () => {
  let vcs: TestVcs;
  beforeAll(async () => {
    vcs = await startTestVcs({ vcApiProfile: 'issuer' });
    await issuerProfile(vcs, 'issuer');
    await vcs.call('POST', '/holder/profile', { name: 'wallet', signatureType: 'Ed25519Signature2020' });
  });
  afterAll(async () => vcs?.stop());

  it('reads a JSON body sent with an empty, a missing or a text Content-Type on every route, profiles included', async () => {
    // Go's http.Post(url, "", body) sends an empty Content-Type.
    for (const [index, contentType] of [
      [0, ''],
      [1, undefined],
      [2, 'text/plain'],
      [3, 'application/json'],
    ] as const) {
      const profile = JSON.stringify({
        name: `p${index}`,
        uri: 'https://example.com/i',
        signatureType: 'Ed25519Signature2020',
      });
      const created = await post(`${vcs.url}/profile`, profile, contentType);
      expect(created.status, String(contentType)).toBe(201);
      const issued = await post(
        `${vcs.url}/p${index}/credentials/issueCredential`,
        JSON.stringify({ credential: credentialV1() }),
        contentType,
      );
      expect(issued.status, String(contentType)).toBe(201);
      const verified = await post(
        `${vcs.url}/verifier/credentials`,
        JSON.stringify({ verifiableCredential: issued.body, options: { checks: ['proof'] } }),
        contentType,
      );
      expect(verified, String(contentType)).toEqual({ status: 200, body: { checks: ['proof'] } });
      const holder = JSON.stringify({ name: `h${index}`, signatureType: 'Ed25519Signature2020' });
      expect((await post(`${vcs.url}/holder/profile`, holder, contentType)).status).toBe(201);
    }
  });

  const routes = [
    [
      '/profile',
      (member: string) => `{"name":"x","uri":"https://example.com/i","signatureType":"Ed25519Signature2020",${member}}`,
    ],
    ['/holder/profile', (member: string) => `{"name":"y","signatureType":"Ed25519Signature2020","extra":{${member}}}`],
    ['/issuer/credentials/issueCredential', (member: string) => `{"credential":{"credentialSubject":{${member}}}}`],
    ['/issuer/credentials/composeAndIssueCredential', (member: string) => `{"claims":{${member}}}`],
    ['/issuer/credentials/status', (member: string) => `{"credentialID":"urn:x",${member}}`],
    ['/credentials/issue', (member: string) => `{"credential":{"credentialSubject":{${member}}}}`],
    ['/credentials/status', (member: string) => `{"credentialId":"urn:x",${member}}`],
    ['/verifier/credentials', (member: string) => `{"verifiableCredential":{${member}}}`],
    ['/verifier/presentations', (member: string) => `{"verifiablePresentation":{${member}}}`],
    ['/credentials/verify', (member: string) => `{"verifiableCredential":{${member}}}`],
    ['/presentations/verify', (member: string) => `{"verifiablePresentation":{${member}}}`],
    ['/wallet/prove/presentations', (member: string) => `{"presentation":{"holder":{${member}}}}`],
  ] as const;

  it('refuses a lone surrogate on every route with 400 naming the member (it would sign the same as U+FFFD)', async () => {
    for (const [path, body] of routes) {
      const reply = await post(`${vcs.url}${path}`, body('"label":"did:example:\\ud800"'), 'application/json');
      expect(reply.status, path).toBe(400);
      expect(reply.body.message, path).toMatch(/member (\S+\.)?label contains a lone UTF-16 surrogate escape/);
    }
  });

  it('refuses __proto__, constructor and prototype members on every route with 400 naming the member', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype'])
      for (const [path, body] of routes) {
        const reply = await post(`${vcs.url}${path}`, body(`"${name}":{"admin":true}`), '');
        expect(reply.status, `${path} ${name}`).toBe(400);
        expect(reply.body.message, path).toMatch(new RegExp(`has a member named (\\S+\\.)?${name};`));
      }
  });

  it('never signs a __proto__ claim: what was issued cannot be changed after signing', async () => {
    // Before the strict reader, {"__proto__":{"admin":true}} was signed without being covered by the proof.
    const text = JSON.stringify({ credential: credentialV1() }).replace(
      '"credentialSubject":{',
      '"credentialSubject":{"__proto__":{"admin":true},',
    );
    const reply = await post(`${vcs.url}/issuer/credentials/issueCredential`, text, 'application/json');
    expect(reply).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/credential\.credentialSubject\.__proto__/) },
    });
    expect(await issue(vcs, 'issuer', credentialV1())).toHaveProperty('proof');
  });

  it('refuses a member given twice', async () => {
    const reply = await post(
      `${vcs.url}/verifier/credentials`,
      '{"verifiableCredential":{},"verifiableCredential":{}}',
      'application/json',
    );
    expect(reply).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/verifiableCredential more than once/) },
    });
  });
});
