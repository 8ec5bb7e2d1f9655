import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { CONTEXT_URLS, bundledContext, bundledContextUrls } from './contexts.js';
import { bundledDocumentLoader, createDocumentLoader, type ContextSource } from './document-loader.js';

const require = createRequire(import.meta.url);

describe('bundled contexts', () => {
  it('serves every context the brief lists under its canonical URL', async () => {
    for (const url of Object.values(CONTEXT_URLS)) {
      const loaded = await bundledDocumentLoader(url);
      expect(loaded.documentUrl).toBe(url);
      expect(loaded.document).toHaveProperty('@context');
    }
    expect(bundledContextUrls()).toHaveLength(Object.keys(CONTEXT_URLS).length);
  });

  it('maps the well-known aliases: http/https, trailing slash, published document URLs', () => {
    const cases: [string, string][] = [
      ['http://www.w3.org/2018/credentials/v1', CONTEXT_URLS.credentialsV1],
      ['https://www.w3.org/ns/activitystreams/', CONTEXT_URLS.activityStreams],
      ['http://www.w3.org/ns/activitystreams', CONTEXT_URLS.activityStreams],
      ['https://w3c-ccg.github.io/lds-jws2020/contexts/v1/', CONTEXT_URLS.jws2020V1],
      ['https://w3id.org/security/suites/bls12381-2020/v1', CONTEXT_URLS.bbsV1],
      ['https://w3c-ccg.github.io/security-vocab/contexts/security-v2.jsonld', CONTEXT_URLS.securityV2],
    ];
    for (const [alias, canonical] of cases) expect(bundledContext(alias)?.url, alias).toBe(canonical);
  });

  it('holds the same data as the published context packages installed here', () => {
    const credentials = require('@digitalbazaar/credentials-context') as { contexts: Map<string, unknown> };
    const security = require('@digitalbazaar/security-context') as { contexts: Map<string, unknown> };
    const ed2020 = require('ed25519-signature-2020-context') as { contexts: Map<string, unknown> };
    const ed2018 = require('ed25519-signature-2018-context') as { contexts: Map<string, unknown> };
    for (const packaged of [credentials, security, ed2020, ed2018]) {
      for (const [url, document] of packaged.contexts) expect(bundledContext(url)?.document, url).toEqual(document);
    }
  });

  it('carries the activity-anchors terms Orb relies on, and ActivityStreams with https terms', () => {
    const anchors = bundledContext(CONTEXT_URLS.activityAnchorsV1)?.document['@context'] as Record<string, unknown>;
    expect(anchors.anchor).toBe('https://w3id.org/activityanchors#anchor');
    expect(anchors.AnchorCredential).toMatchObject({ '@id': 'https://w3id.org/activityanchors#AnchorCredential' });
    const streams = bundledContext(CONTEXT_URLS.activityStreams)?.document['@context'] as Record<string, unknown>;
    expect(streams.as).toBe('https://www.w3.org/ns/activitystreams#');
    expect(streams['@vocab']).toBe('_:');
  });
});

describe('createDocumentLoader', () => {
  it('rejects an unknown context with a bad_request that names the URL', async () => {
    const error = await bundledDocumentLoader('https://example.com/contexts/unknown/v1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
    expect((error as AppError).message).toContain('https://example.com/contexts/unknown/v1');
    expect((error as AppError).message).toContain('remote context loading is disabled');
  });

  it('rejects a non-string or empty URL', async () => {
    await expect(bundledDocumentLoader('')).rejects.toThrow(/non-empty string/);
    await expect(bundledDocumentLoader(42 as unknown as string)).rejects.toThrow(/non-empty string/);
  });

  it('hands out copies, so a caller mutating a context cannot corrupt the bundle', async () => {
    const first = await bundledDocumentLoader(CONTEXT_URLS.credentialsV1);
    (first.document as Record<string, unknown>)['@context'] = 'tampered';
    const second = await bundledDocumentLoader(CONTEXT_URLS.credentialsV1);
    expect(second.document).toEqual(bundledContext(CONTEXT_URLS.credentialsV1)?.document);
    expect((second.document as Record<string, unknown>)['@context']).not.toBe('tampered');
  });

  it('serves extra static contexts, bundled ones first', async () => {
    const loader = createDocumentLoader({
      contexts: { 'https://example.com/ctx/v1': { '@context': { ex: 'https://example.com/#' } } },
    });
    expect((await loader('http://example.com/ctx/v1/')).document).toEqual({
      '@context': { ex: 'https://example.com/#' },
    });
    expect((await loader(CONTEXT_URLS.didV1)).document).toEqual(bundledContext(CONTEXT_URLS.didV1)?.document);
  });

  it('refuses an extra context that is not a context document', () => {
    expect(() =>
      createDocumentLoader({ contexts: { 'https://example.com/x': [] as unknown as { '@context': unknown } } }),
    ).toThrow(/@context member/);
  });

  it('consults explicit sources, in order, only for URLs nothing else serves', async () => {
    const asked: string[] = [];
    const source = (name: string, serves: string): ContextSource => ({
      load: async (url) => {
        asked.push(`${name}:${url}`);
        return url === serves ? { '@context': { from: `https://example.com/${name}#` } } : undefined;
      },
    });
    const loader = createDocumentLoader({
      sources: [source('a', 'https://x.example/1'), source('b', 'https://x.example/2')],
    });
    expect((await loader('https://x.example/2')).document).toEqual({ '@context': { from: 'https://example.com/b#' } });
    await loader(CONTEXT_URLS.credentialsV1);
    expect(asked).toEqual(['a:https://x.example/2', 'b:https://x.example/2']);
    await expect(loader('https://x.example/3')).rejects.toThrow(/unknown JSON-LD context https:\/\/x.example\/3/);
  });
});
