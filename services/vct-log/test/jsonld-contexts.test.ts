import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddVcResponse } from '@anchor/common/vct';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogOptions, type VctLogServer } from '../src/server.js';
import { call } from '../src/testing/index.js';

const EXAMPLES = 'https://www.w3.org/2018/credentials/examples/v1';
const ODRL = 'https://www.w3.org/ns/odrl.jsonld';
// Operator contexts: trustbloc/vct's BDD contexts (both bundled now) under URLs nothing bundles, the first
// importing the second as the examples context imports ODRL.
const DEGREE = 'https://contexts.example.org/degree/v1';
const POLICY = 'https://contexts.example.org/policy/v1';
const asOperatorData = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value).replaceAll(EXAMPLES, DEGREE).replaceAll(ODRL, POLICY)) as unknown;
const fixture = async (name: string): Promise<unknown> =>
  JSON.parse(await readFile(new URL(`./fixtures/original-bdd/${name}`, import.meta.url), 'utf8')) as unknown;

describe('vct-log: JSON-LD contexts as operator data', () => {
  let dir: TempDir;
  let original: unknown;
  let examples: unknown;
  let odrl: unknown;
  let credential: unknown;
  let lawDegree: unknown;
  const servers: VctLogServer[] = [];
  const start = async (options: VctLogOptions = {}): Promise<string> => {
    const server = createServer({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      ...options,
    });
    await server.start();
    servers.push(server);
    return server.url;
  };
  const stopAll = async () => {
    for (const server of servers.splice(0)) await server.stop();
  };

  beforeAll(async () => {
    dir = await makeTempDir('vct-contexts-');
    [original, examples, odrl, credential, lawDegree] = await Promise.all(
      [
        'verifiable_credentials_no_proof.json',
        ...[
          'ld-example-contexts.json',
          'ld-odrl-contexts.json',
          'verifiable_credentials_no_proof.json',
          'bachelor_degree_of_law_no_proof.json',
        ].map(async (name) => asOperatorData(await fixture(name))),
      ].map(async (entry) => (typeof entry === 'string' ? fixture(entry) : entry)),
    );
  });
  afterAll(async () => {
    await stopAll();
    await dir.remove();
  });

  it("logs trustbloc/vct's BDD credential at once (the W3C examples context and ODRL are bundled)", async () => {
    const url = await start({ storage: { type: 'mem' } });
    const accepted = await call<AddVcResponse>(`${url}/main/v1/add-vc`, { json: original });
    expect(accepted.status).toBe(200);
    expect(accepted.body.svct_version).toBe(0);
    await stopAll();
  });

  it('refuses a credential whose context is not bundled (400 naming it) until the operator adds it, then logs it; the contexts survive a restart', async () => {
    const url = await start();
    const addVc = (body: unknown) => call<AddVcResponse & { message: string }>(`${url}/main/v1/add-vc`, { json: body });
    const addContexts = (body: unknown) => call<{ added: string[] }>(`${url}/ld/context`, { json: body });

    const unknown = await addVc(credential);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe(
      `parse credential: unknown JSON-LD context ${DEGREE}: it is not bundled and remote context loading is disabled`,
    );

    // The degree context imports the policy context: with the first alone, the second is what is missing.
    expect(await addContexts(examples)).toMatchObject({ status: 200, body: { added: [DEGREE] } });
    const withoutPolicy = await addVc(credential);
    expect(withoutPolicy.status).toBe(400);
    expect(withoutPolicy.body.message).toContain(`unknown JSON-LD context ${POLICY}`);

    expect(await addContexts({ documents: [odrl] })).toMatchObject({ status: 200, body: { added: [POLICY] } });
    const accepted = await addVc(credential);
    expect(accepted.status).toBe(200);
    expect(accepted.body.svct_version).toBe(0);

    const listed = await call<{ documents: Array<{ url: string; content: unknown }> }>(`${url}/ld/context`);
    expect(listed.status).toBe(200);
    expect(listed.body.documents.map((d) => d.url)).toEqual([DEGREE, POLICY]);
    expect(listed.body.documents[0]?.content).toEqual((examples as { content: unknown }).content);

    await stopAll();
    const restarted = await start();
    expect((await call(`${restarted}/main/v1/add-vc`, { json: lawDegree })).status).toBe(200);

    // Removed: refused again, at once.
    expect((await call(`${restarted}/ld/context?url=${encodeURIComponent(POLICY)}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    const removed = await call<{ message: string }>(`${restarted}/main/v1/add-vc`, {
      json: { ...(lawDegree as object), id: 'http://example.gov/credentials/removed-odrl' },
    });
    expect(removed.status).toBe(400);
    expect(removed.body.message).toContain(POLICY);
    expect((await call(`${restarted}/ld/context?url=${encodeURIComponent(POLICY)}`, { method: 'DELETE' })).status).toBe(
      404,
    );
    await stopAll();
  });

  it('never replaces or removes a bundled context (409), and refuses malformed bodies (400)', async () => {
    const url = await start({ storage: { type: 'mem' } });
    const bundled = await call<{ message: string }>(`${url}/ld/context`, {
      json: { url: 'https://www.w3.org/2018/credentials/v1', content: { '@context': {} } },
    });
    expect(bundled.status).toBe(409);
    expect(bundled.body.message).toBe(
      'context https://www.w3.org/2018/credentials/v1 is bundled (as https://www.w3.org/2018/credentials/v1) and cannot be replaced',
    );
    const del = await call(`${url}/ld/context?url=${encodeURIComponent('https://w3id.org/security/bbs/v1')}`, {
      method: 'DELETE',
    });
    expect(del.status).toBe(409);
    expect((await call(`${url}/ld/context`, { json: [{ url: 'relative', content: {} }] })).status).toBe(400);
    expect((await call(`${url}/ld/context`, { method: 'DELETE' })).status).toBe(400);
    await stopAll();
  });

  it('takes --contexts-file at start, and keeps the routes behind the tokens (a write token to change them)', async () => {
    const file = join(dir.path, 'contexts.json');
    await writeFile(file, JSON.stringify([examples, odrl]));
    const url = await start({
      storage: { type: 'mem' },
      contextsFile: file,
      readTokens: ['R'],
      writeTokens: ['W'],
    });
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    expect((await call(`${url}/main/v1/add-vc`, { json: credential, headers: auth('W') })).status).toBe(200);
    expect((await call(`${url}/ld/context`, { json: odrl })).status).toBe(401);
    expect((await call(`${url}/ld/context`, { json: odrl, headers: auth('R') })).status).toBe(401);
    expect((await call(`${url}/ld/context`, { json: odrl, headers: auth('W') })).status).toBe(200);
    expect((await call(`${url}/ld/context`)).status).toBe(401);
    expect((await call(`${url}/ld/context`, { headers: auth('R') })).status).toBe(200);
    await stopAll();
  });
});
