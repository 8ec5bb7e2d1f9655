/* eslint-disable @typescript-eslint/no-explicit-any -- the tests read answer bodies freely */
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { createServer, type VcsOptions, type VcsServer } from './server.js';

export const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
export const CREDENTIALS_V2 = 'https://www.w3.org/ns/credentials/v2';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A vcs in this process on a free loopback port, in memory unless told otherwise. */
export interface TestVcs {
  server: VcsServer;
  url: string;
  dir: TempDir;
  call<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  stop(): Promise<void>;
}

export async function startTestVcs(options: VcsOptions = {}): Promise<TestVcs> {
  const dir = await makeTempDir('vcs-test-');
  const server = createServer({ dataDir: dir.path, storage: { type: 'mem' }, keyStorage: { type: 'mem' }, ...options });
  await server.start().catch(async (error: unknown) => {
    await dir.remove();
    throw error;
  });
  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
  return {
    server,
    url: server.url,
    dir,
    call,
    async stop() {
      await server.stop();
      await dir.remove();
    },
  };
}

let counter = 0;

/** A minimal VC 1.1 credential with a fresh id. */
export function credentialV1(extra: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    '@context': [CREDENTIALS_V1],
    id: `urn:uuid:00000000-0000-4000-8000-${String(counter).padStart(12, '0')}-${Date.now()}`,
    type: ['VerifiableCredential'],
    issuanceDate: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:alice' },
    ...extra,
  };
}

/** A minimal VC 2.0 credential with a fresh id and a claim under the v2 context's vocabulary. */
export function credentialV2(extra: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    '@context': [CREDENTIALS_V2],
    id: `urn:uuid:00000000-0000-4000-9000-${String(counter).padStart(12, '0')}-${Date.now()}`,
    type: ['VerifiableCredential'],
    credentialSubject: { id: 'did:example:bob', name: 'Bob' },
    ...extra,
  };
}

export function presentation(credentials: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '@context': [CREDENTIALS_V1],
    type: ['VerifiablePresentation'],
    verifiableCredential: credentials,
    ...extra,
  };
}

/** Creates an issuer profile and fails the test when it cannot. */
export async function issuerProfile(vcs: TestVcs, name: string, fields: Record<string, unknown> = {}): Promise<any> {
  const reply = await vcs.call('POST', '/profile', {
    name,
    uri: 'https://example.com/issuer',
    signatureType: 'Ed25519Signature2020',
    ...fields,
  });
  if (reply.status !== 201) throw new Error(`profile ${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

export async function issue(
  vcs: TestVcs,
  profile: string,
  credential: Record<string, unknown>,
  options?: Record<string, unknown>,
): Promise<any> {
  const reply = await vcs.call('POST', `/${profile}/credentials/issueCredential`, {
    credential,
    ...(options ? { options } : {}),
  });
  if (reply.status !== 201) throw new Error(`issue: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}
