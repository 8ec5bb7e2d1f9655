import { describe, expect, it } from 'vitest';
import { readDataUrl, summarizeAnchor, witnessName } from './linkset.js';

async function gzipDataUrl(value: unknown): Promise<string> {
  const stream = new Blob([JSON.stringify(value)]).stream().pipeThrough(new CompressionStream('gzip'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return `data:application/gzip;base64,${btoa(String.fromCharCode(...bytes))}`;
}

// The shape a node's /cas/<anchor> serves (a local federation's anchor, keys and hashes shortened).
async function anchorLinkset(proof: unknown): Promise<unknown> {
  return {
    linkset: [
      {
        anchor: 'hl:uEiA8K45',
        author: [{ href: 'http://127.0.0.1:8081/services/node' }],
        original: [
          {
            href: await gzipDataUrl({
              linkset: [
                { anchor: 'hl:uEiAuic', item: [{ href: 'did:node:uAAA:EiCM' }, { href: 'did:node:uAAA:EiDx' }] },
              ],
            }),
            type: 'application/linkset+json',
          },
        ],
        replies: [
          {
            href: await gzipDataUrl({
              id: 'http://127.0.0.1:8081/vc/3e8c8a7c',
              issuanceDate: '2026-12-03T05:46:07.057Z',
              proof,
            }),
            type: 'application/ld+json',
          },
        ],
      },
    ],
  };
}

describe('summarizeAnchor', () => {
  it('reads the DIDs of the content object and one witness per proof', async () => {
    const summary = await summarizeAnchor(
      await anchorLinkset([
        { verificationMethod: 'did:web:127.0.0.1%3A8081#vc-key', domain: 'http://127.0.0.1:8070/main' },
        { verificationMethod: 'did:web:127.0.0.1%3A8082#vc-key', created: '2026-12-03T05:46:07.097Z' },
      ]),
    );
    expect(summary.author).toBe('http://127.0.0.1:8081/services/node');
    expect(summary.contentHashlink).toBe('hl:uEiA8K45');
    expect(summary.dids).toEqual(['did:node:uAAA:EiCM', 'did:node:uAAA:EiDx']);
    expect(summary.credentialId).toBe('http://127.0.0.1:8081/vc/3e8c8a7c');
    expect(summary.witnesses.map((w) => [w.name, w.log])).toEqual([
      ['127.0.0.1:8081', 'http://127.0.0.1:8070/main'],
      ['127.0.0.1:8082', undefined],
    ]);
  });

  it('takes a single proof object as one witness', async () => {
    const summary = await summarizeAnchor(await anchorLinkset({ verificationMethod: 'https://k.example/key' }));
    expect(summary.witnesses.map((w) => w.name)).toEqual(['https://k.example/key']);
  });

  it('refuses what is not a linkset', async () => {
    await expect(summarizeAnchor({ nope: 1 })).rejects.toThrow(/not a linkset/);
    await expect(summarizeAnchor({ linkset: [] })).rejects.toThrow(/not a linkset/);
  });
});

describe('readDataUrl', () => {
  it('decodes plain base64 and refuses other URLs', async () => {
    expect(await readDataUrl(`data:text/plain;base64,${btoa('hi')}`)).toBe('hi');
    await expect(readDataUrl('https://x.example/a')).rejects.toThrow(/not a base64 data URL/);
  });
});

describe('witnessName', () => {
  it('is the did:web host, percent-decoded', () => {
    expect(witnessName('did:web:node.example#vc-key')).toBe('node.example');
    expect(witnessName('did:web:127.0.0.1%3A8082:path#k')).toBe('127.0.0.1:8082');
  });
});
