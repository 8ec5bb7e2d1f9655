import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { historyDid, historyUrl, parseHistory, timelineOf, versionUrl } from './history.js';

/** A node's real answers (see ../verify/vectors/README.md): a DID created, then updated. */
const capture = JSON.parse(readFileSync(new URL('../verify/vectors/federation.json', import.meta.url), 'utf8')) as {
  did: string;
  history: unknown;
  resolution: { didDocument: unknown; didDocumentMetadata: Record<string, unknown> };
};

describe('the timeline of a real history', () => {
  it('has one row per operation, with its anchor, version, time and canonical id change', () => {
    const rows = timelineOf(parseHistory(capture.history));
    expect(rows.map((row) => [row.number, row.type, row.status])).toEqual([
      [1, 'create', 'published'],
      [2, 'update', 'published'],
    ]);
    const [create, update] = rows as [(typeof rows)[0], (typeof rows)[0]];
    expect(create.versionId).toBe(create.anchor);
    expect(create.newCanonicalId).toBe(`did:node:${create.anchor}:${capture.did.split(':').at(-1)}`);
    expect(update.newCanonicalId).toBeUndefined();
    expect(update.anchor).not.toBe(create.anchor);
    expect(update.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(rows.some((row) => row.deactivates)).toBe(false);
    // The last version is the one the resolution shows.
    expect(update.versionId).toBe(capture.resolution.didDocumentMetadata['versionId']);
  });

  it('marks the deactivation once, where it happens', () => {
    const history = parseHistory(capture.history);
    const [create, update] = history.operations as [(typeof history.operations)[0], (typeof history.operations)[0]];
    const deactivated = {
      ...history,
      operations: [create, { ...update, type: 'deactivate' as const, deactivated: true }],
    };
    expect(timelineOf(deactivated).map((row) => row.deactivates)).toEqual([false, true]);
  });

  it('refuses an answer that is not a history', () => {
    expect(() => parseHistory({ message: 'DID not found' })).toThrow('not a DID history');
    expect(() => parseHistory({ didSuffix: 'x', operations: [{}] })).toThrow('history operation 0 has no type');
  });

  it('asks the history of the canonical id, and of the did:node id behind a did:web view', () => {
    expect(historyDid(capture.did, capture.resolution)).toBe(capture.resolution.didDocumentMetadata['canonicalId']);
    const web = { didDocument: { id: 'did:web:h:scid:s', alsoKnownAs: ['did:node:uAAA:s'] }, didDocumentMetadata: {} };
    expect(historyDid('did:web:h:scid:s', web)).toBe('did:node:uAAA:s');
    expect(historyDid(' did:node:uAAA:s ', { didDocumentMetadata: {} })).toBe('did:node:uAAA:s');
  });

  it('builds the history and version URLs with the DID as one segment', () => {
    expect(historyUrl('http://n', 'did:node:uAAA:s')).toBe(
      'http://n/sidetree/v1/identifiers/did%3Anode%3AuAAA%3As/history',
    );
    expect(versionUrl('http://n', 'did:node:uAAA:s', 'uEiA')).toBe(
      'http://n/sidetree/v1/identifiers/did%3Anode%3AuAAA%3As?versionId=uEiA',
    );
  });
});
