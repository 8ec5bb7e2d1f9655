import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { canonicalize, CONTEXT_URLS } from '../jsonld/index.js';
import { createMemStoreProvider, type StoreProvider } from '../storage/index.js';
import { ContextBroadcast, WorkerContexts } from './context-broadcast.js';
import { JsonLdContexts } from './context-store.js';
import { createJsonLdContextsFeature, readContextsFile } from './contexts-feature.js';
import { parseOperatorContexts } from './operator-context.js';

const PET_URL = 'https://example.org/contexts/pets/v1';
const petContext = (vocab: string) => ({ '@context': { '@version': 1.1, name: `${vocab}name`, Pet: `${vocab}Pet` } });
const PETS = petContext('https://example.org/pets#');
const pet = { '@context': PET_URL, '@type': 'Pet', name: 'Rex' };

/** The AppError a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('parseOperatorContexts', () => {
  it("reads trustbloc/vct's shapes: one {url, content}, a list, {documents: [...]}; `document` for `content`", () => {
    const one = { url: PET_URL, content: PETS };
    expect(parseOperatorContexts(one)).toEqual([{ url: PET_URL, document: PETS }]);
    expect(parseOperatorContexts([one, { url: 'urn:ctx:2', document: PETS }]).map((c) => c.url)).toEqual([
      PET_URL,
      'urn:ctx:2',
    ]);
    expect(
      parseOperatorContexts({ documents: [{ ...one, documentURL: 'https://elsewhere.example/pets.jsonld' }] }),
    ).toEqual([{ url: PET_URL, document: PETS }]);
  });

  it('names what is wrong, as a 400', () => {
    const cases: [unknown, RegExp][] = [
      ['text', /must be \{"url","content"\}/],
      [{ documents: 'x' }, /must be \{"url","content"\}/],
      [[{ content: PETS }], /documents\[0\]: "url" must be a non-empty string/],
      [[{ url: 'pets', content: PETS }], /"url" "pets" is not an absolute URL/],
      [
        [{ url: PET_URL, content: { name: 'x' } }],
        /documents\[0\] \(https:\/\/example.org\/contexts\/pets\/v1\): "content" must be a JSON-LD context/,
      ],
      [[{ url: PET_URL, content: { '@context': 5 } }], /@context must be an object, a list or a URL/],
      [
        [
          { url: PET_URL, content: PETS },
          { url: PET_URL, content: PETS },
        ],
        /given twice/,
      ],
      [{ url: `https://example.org/${'a'.repeat(1_000)}`, content: PETS }, /longer than 1000 bytes/],
    ];
    for (const [value, message] of cases) {
      let error: unknown;
      try {
        parseOperatorContexts(value);
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(value).slice(0, 80)).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(400);
      expect((error as AppError).message).toMatch(message);
    }
  });
});

describe('JsonLdContexts', () => {
  const providers: StoreProvider[] = [];
  const storage = (): StoreProvider => {
    const provider = createMemStoreProvider();
    providers.push(provider);
    return provider;
  };
  afterEach(async () => {
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
  });

  it('refuses a document whose context was not added, naming it; accepts it once added; refuses it again once removed', async () => {
    const contexts = await JsonLdContexts.open(storage());
    const loader = { documentLoader: contexts.documentLoader };
    const before = await refusal(canonicalize(pet, loader));
    expect(before.status).toBe(400);
    expect(before.message).toContain(PET_URL);

    await contexts.add([{ url: PET_URL, document: PETS }]);
    expect(await canonicalize(pet, loader)).toBe(
      '_:c14n0 <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://example.org/pets#Pet> .\n_:c14n0 <https://example.org/pets#name> "Rex" .\n',
    );
    // http: and a trailing slash name the same context, as for the bundled ones.
    expect(await canonicalize({ ...pet, '@context': 'http://example.org/contexts/pets/v1/' }, loader)).toContain(
      'pets#name',
    );

    // Replaced: the new document is used at once (jsonld.js caches nothing of an operator context).
    await contexts.add([{ url: PET_URL, document: petContext('https://example.org/animals#') }]);
    expect(await canonicalize(pet, loader)).toContain('<https://example.org/animals#name>');

    expect(await contexts.remove(PET_URL)).toBe(true);
    expect(await contexts.remove(PET_URL)).toBe(false);
    expect((await refusal(canonicalize(pet, loader))).message).toContain(PET_URL);
  });

  it("keeps one service's contexts from another in the same process", async () => {
    const mine = await JsonLdContexts.open(storage());
    const theirs = await JsonLdContexts.open(storage());
    await mine.add([{ url: PET_URL, document: PETS }]);
    expect(await canonicalize(pet, { documentLoader: mine.documentLoader })).toContain('pets#name');
    expect((await refusal(canonicalize(pet, { documentLoader: theirs.documentLoader }))).status).toBe(400);
  });

  it('refuses to replace or remove a bundled context (409) and writes nothing of a refused batch', async () => {
    const contexts = await JsonLdContexts.open(storage());
    const replace = await refusal(
      contexts.add([
        { url: PET_URL, document: PETS },
        { url: 'http://www.w3.org/2018/credentials/v1/', document: PETS },
      ]),
    );
    expect(replace.status).toBe(409);
    expect(replace.message).toMatch(
      /bundled \(as https:\/\/www.w3.org\/2018\/credentials\/v1\) and cannot be replaced/,
    );
    expect(contexts.list()).toEqual([]);
    expect((await refusal(contexts.remove(CONTEXT_URLS.didV1))).status).toBe(409);
  });

  it('persists in the store: a restart, or another instance on the same database after refresh, sees the same set', async () => {
    const provider = storage();
    const first = await JsonLdContexts.open(provider);
    await first.add([{ url: PET_URL, document: PETS }]);
    const restarted = await JsonLdContexts.open(provider);
    expect(restarted.list()).toEqual([{ url: PET_URL, document: PETS }]);

    const versionBefore = restarted.version;
    await restarted.refresh();
    expect(restarted.version).toBe(versionBefore);
    await first.add([{ url: 'urn:example:other', document: PETS }]);
    await first.remove(PET_URL);
    await restarted.refresh();
    expect(restarted.list().map((c) => c.url)).toEqual(['urn:example:other']);
    expect(restarted.version).toBe(versionBefore + 1);
  });
});

describe('worker threads follow the contexts (ContextBroadcast, WorkerContexts)', () => {
  it('a worker copy catches up with each change, and one started late asks for the current set', async () => {
    const provider = createMemStoreProvider();
    const contexts = await JsonLdContexts.open(provider);
    const broadcast = new ContextBroadcast(contexts);
    try {
      const early = new WorkerContexts(broadcast.setup());
      const staleSetup = broadcast.setup();
      await contexts.add([{ url: PET_URL, document: PETS }]);
      await early.upTo(broadcast.version);
      expect(await canonicalize(pet, { documentLoader: early.documentLoader })).toContain('pets#name');

      // A thread replaced after the change was given the set of its pool's start.
      const late = new WorkerContexts(staleSetup);
      expect(await late.load(PET_URL)).toBeUndefined();
      await late.upTo(broadcast.version);
      expect(await late.load(PET_URL)).toEqual(PETS);

      await contexts.remove(PET_URL);
      await early.upTo(broadcast.version);
      expect((await refusal(canonicalize(pet, { documentLoader: early.documentLoader }))).message).toContain(PET_URL);

      const never = await refusal(early.upTo(broadcast.version + 5, 50));
      expect(never.status).toBe(503);
    } finally {
      broadcast.close();
      await provider.close();
    }
  });
});

describe('--contexts-file', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is added when the feature is created, over what the store holds', async () => {
    dir = await mkdtemp(join(tmpdir(), 'contexts-file-'));
    const file = join(dir, 'contexts.json');
    await writeFile(file, JSON.stringify({ documents: [{ url: PET_URL, content: PETS }] }));
    const provider = createMemStoreProvider();
    try {
      const contexts = await JsonLdContexts.open(provider);
      await contexts.add([{ url: PET_URL, document: petContext('https://example.org/old#') }]);
      const feature = await createJsonLdContextsFeature(contexts, { contextsFile: file });
      expect(feature.contexts.list()).toEqual([{ url: PET_URL, document: PETS }]);
      expect(feature.routes.map((route) => `${route.method} ${route.path} ${route.auth}`)).toEqual([
        'POST /ld/context admin',
        'GET /ld/context admin',
        'DELETE /ld/context admin',
      ]);
    } finally {
      await provider.close();
    }
  });

  it('stops the start with one line naming the file and the problem', async () => {
    dir = await mkdtemp(join(tmpdir(), 'contexts-file-'));
    const missing = join(dir, 'missing.json');
    await expect(readContextsFile(missing)).rejects.toThrow(`--contexts-file ${missing}: ENOENT`);
    const notJson = join(dir, 'bad.json');
    await writeFile(notJson, '{"url":');
    await expect(readContextsFile(notJson)).rejects.toThrow(/bad.json: not JSON: /);
    const noContent = join(dir, 'no-content.json');
    await writeFile(noContent, JSON.stringify([{ url: PET_URL }]));
    await expect(readContextsFile(noContent)).rejects.toThrow(
      /no-content.json: documents\[0\] \(https:\/\/example.org\/contexts\/pets\/v1\): "content" must be/,
    );
  });
});
