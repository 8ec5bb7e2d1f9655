import { canonicalize, decodeDataUri, hashlinkMetadata, multibaseMultihash } from '@anchor/common/encoding';
import { describe, expect, it } from 'vitest';
import {
  ANCHOR_PROFILE,
  buildAnchorLink,
  buildContentObject,
  buildRelatedLinkset,
  contentAnchor,
  parentsOf,
  readAnchorLinkset,
  type ContentObject,
} from './anchor-linkset.js';

/**
 * Vectors from Orb's `pkg/linkset/linkset_test.go` (sidetree.md §5.6: hash(JCS(inner)) =
 * uEiDR9t1…): the inner content object, the reply credential, and the whole anchor linkset with
 * form-escaped JSON data URIs, which must come out byte for byte; and the gzip variant, whose data URIs
 * must decode to the same canonical parts (gzip bytes themselves depend on the compressor).
 */
const AUTHOR = 'https://orb.domain2.com/services/orb';
const CORE_INDEX = 'hl:uEiCVVS-n0wx0OfeEXBM9jcGNOcMEArYYWPIxk5D_l96ySg';
const CORE_INDEX_WITH_METADATA = 'hl:uEiCVVS-n0wx0OfeEXBM9jcGNOcMEArYYWPIxk5D_l96ySg:dcefdece89eu7987';
const UP_1 =
  'hl:uEiAVAPhjewMUvawD0gl-MYMzvTPVuUA1DpO1SmBqcGbhvw:uoQ-BeEtodHRwczovL29yYi5kb21haW4yLmNvbS9jYXMvdUVpQVZBUGhqZXdNVXZhd0QwZ2wtTVlNenZUUFZ1VUExRHBPMVNtQnFjR2Jodnc';
const UP_2 =
  'hl:uEiAVAQhjewMUvawD0gl-LYMzvTPVuUA1DpO1SmBqcGbhvw:uoQ-BeEtodHRwczovL29yYi5kb21haW4yLmNvbS9jYXMvdUVpQVZBUGhqZXdNVXZhd0QwZ2wtTVlNenZUUFZ1VUExRHBPMVNtQnFjR2Jodnc';

const ORIGINAL: ContentObject = {
  linkset: [
    {
      anchor: CORE_INDEX,
      author: [{ href: AUTHOR }],
      item: [
        {
          href: 'did:orb:uAAA:EiBfWqeAJfENeHLABsYIYmsIqtk-bsmvJmoR6IgISd6ZcA',
          previous: ['hl:uEiAVAPhjewMUvawD0gl-MYMzvTPVuUA1DpO1SmBqcGbhvw'],
        },
        { href: 'did:orb:uAAA:EiBfWqeAJfENeHLABsYIYmsIqtk-bsmvJmoR6IgISd6AdB' },
      ],
      profile: [{ href: ANCHOR_PROFILE }],
    },
  ],
};

const REPLY = {
  '@context': ['https://www.w3.org/2018/credentials/v1'],
  credentialSubject: 'hl:uEiD96Zjp10atu2DPV1VbSxZmMvk5r5iAvSlnXXAfpkpY9g',
  id: 'https://orb.domain2.com/vc/afeead95-8507-460b-a73c-cf9b4853b4a9',
  issuanceDate: '2022-02-22T15:45:41.6601759Z',
  issuer: 'https://orb.domain2.com',
  proof: [
    {
      created: '2022-02-22T15:45:41.6613096Z',
      domain: 'https://orb.domain2.com',
      jws: 'eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..2Sp1wXzI69pontDt-x26KwEBFhEzif33io9lIEHEEBRHgiLAFr4D6XDDVyjMmSCXWWuYBMZUFWwwHJkpPi08Dg',
      proofPurpose: 'assertionMethod',
      type: 'Ed25519Signature2018',
      verificationMethod: 'did:web:orb.domain2.com#orb2key',
    },
    {
      created: '2022-02-22T15:45:42.664Z',
      domain: 'http://orb.vct:8077/maple2020',
      jws: 'eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19.._vShdZ5z_YKjWfKPt5zgTJpUoYx1pMfjETiFVHHVsZrUlAM9CXLSjrRAzGicT4uqTVFqurrpsQstPAABpm_DDQ',
      proofPurpose: 'assertionMethod',
      type: 'Ed25519Signature2018',
      verificationMethod: 'did:web:orb.domain1.com#orb1key2',
    },
  ],
  type: 'VerifiableCredential',
};

const ANCHOR = 'hl:uEiDR9t1fX6jamGe2SkCbt9-FSEoIy0QDI1Bpy26zn21QoQ';

const LINKSET_URL_ENCODED = {
  linkset: [
    {
      anchor: ANCHOR,
      author: [{ href: AUTHOR }],
      original: [
        {
          href: 'data:application/json,%7B%22linkset%22%3A%5B%7B%22anchor%22%3A%22hl%3AuEiCVVS-n0wx0OfeEXBM9jcGNOcMEArYYWPIxk5D_l96ySg%22%2C%22author%22%3A%5B%7B%22href%22%3A%22https%3A%2F%2Forb.domain2.com%2Fservices%2Forb%22%7D%5D%2C%22item%22%3A%5B%7B%22href%22%3A%22did%3Aorb%3AuAAA%3AEiBfWqeAJfENeHLABsYIYmsIqtk-bsmvJmoR6IgISd6ZcA%22%2C%22previous%22%3A%5B%22hl%3AuEiAVAPhjewMUvawD0gl-MYMzvTPVuUA1DpO1SmBqcGbhvw%22%5D%7D%2C%7B%22href%22%3A%22did%3Aorb%3AuAAA%3AEiBfWqeAJfENeHLABsYIYmsIqtk-bsmvJmoR6IgISd6AdB%22%7D%5D%2C%22profile%22%3A%5B%7B%22href%22%3A%22https%3A%2F%2Fw3id.org%2Forb%23v0%22%7D%5D%7D%5D%7D',
          type: 'application/linkset+json',
        },
      ],
      profile: [{ href: ANCHOR_PROFILE }],
      related: [
        {
          href: 'data:application/json,%7B%22linkset%22%3A%5B%7B%22anchor%22%3A%22hl%3AuEiDR9t1fX6jamGe2SkCbt9-FSEoIy0QDI1Bpy26zn21QoQ%22%2C%22profile%22%3A%5B%7B%22href%22%3A%22https%3A%2F%2Fw3id.org%2Forb%23v0%22%7D%5D%2C%22up%22%3A%5B%7B%22href%22%3A%22hl%3AuEiAVAPhjewMUvawD0gl-MYMzvTPVuUA1DpO1SmBqcGbhvw%3AuoQ-BeEtodHRwczovL29yYi5kb21haW4yLmNvbS9jYXMvdUVpQVZBUGhqZXdNVXZhd0QwZ2wtTVlNenZUUFZ1VUExRHBPMVNtQnFjR2Jodnc%22%7D%2C%7B%22href%22%3A%22hl%3AuEiAVAQhjewMUvawD0gl-LYMzvTPVuUA1DpO1SmBqcGbhvw%3AuoQ-BeEtodHRwczovL29yYi5kb21haW4yLmNvbS9jYXMvdUVpQVZBUGhqZXdNVXZhd0QwZ2wtTVlNenZUUFZ1VUExRHBPMVNtQnFjR2Jodnc%22%7D%5D%2C%22via%22%3A%5B%7B%22href%22%3A%22hl%3AuEiCVVS-n0wx0OfeEXBM9jcGNOcMEArYYWPIxk5D_l96ySg%3Adcefdece89eu7987%22%7D%5D%7D%5D%7D',
          type: 'application/linkset+json',
        },
      ],
      replies: [
        {
          href: 'data:application/json,%7B%22%40context%22%3A%5B%22https%3A%2F%2Fwww.w3.org%2F2018%2Fcredentials%2Fv1%22%5D%2C%22credentialSubject%22%3A%22hl%3AuEiD96Zjp10atu2DPV1VbSxZmMvk5r5iAvSlnXXAfpkpY9g%22%2C%22id%22%3A%22https%3A%2F%2Forb.domain2.com%2Fvc%2Fafeead95-8507-460b-a73c-cf9b4853b4a9%22%2C%22issuanceDate%22%3A%222022-02-22T15%3A45%3A41.6601759Z%22%2C%22issuer%22%3A%22https%3A%2F%2Forb.domain2.com%22%2C%22proof%22%3A%5B%7B%22created%22%3A%222022-02-22T15%3A45%3A41.6613096Z%22%2C%22domain%22%3A%22https%3A%2F%2Forb.domain2.com%22%2C%22jws%22%3A%22eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19..2Sp1wXzI69pontDt-x26KwEBFhEzif33io9lIEHEEBRHgiLAFr4D6XDDVyjMmSCXWWuYBMZUFWwwHJkpPi08Dg%22%2C%22proofPurpose%22%3A%22assertionMethod%22%2C%22type%22%3A%22Ed25519Signature2018%22%2C%22verificationMethod%22%3A%22did%3Aweb%3Aorb.domain2.com%23orb2key%22%7D%2C%7B%22created%22%3A%222022-02-22T15%3A45%3A42.664Z%22%2C%22domain%22%3A%22http%3A%2F%2Forb.vct%3A8077%2Fmaple2020%22%2C%22jws%22%3A%22eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19.._vShdZ5z_YKjWfKPt5zgTJpUoYx1pMfjETiFVHHVsZrUlAM9CXLSjrRAzGicT4uqTVFqurrpsQstPAABpm_DDQ%22%2C%22proofPurpose%22%3A%22assertionMethod%22%2C%22type%22%3A%22Ed25519Signature2018%22%2C%22verificationMethod%22%3A%22did%3Aweb%3Aorb.domain1.com%23orb1key2%22%7D%5D%2C%22type%22%3A%22VerifiableCredential%22%7D',
          type: 'application/ld+json',
        },
      ],
    },
  ],
};

const GZIP_ORIGINAL =
  'data:application/gzip;base64,H4sIAAAAAAAA/6SQQW+6MBiHv8v7v6Lif5mJvZVJHGaoGRPHDFmgFKhSim0pbobvvmB22GG3nd88b37Pc4WK1SdFNaDDFZKalEICgrJCrcsewjAY1XZ3sTc5dV8df34ky/WG+C6WUbTfepfT/eK9ms8+ggIsSFp9ow9XKCXNhzdaNwpNJkKm40zwhNX/x0TwiaLSMELVcIA+toBpyn+CGcuQkClqMcbIZU6+P1O8yt01fXzCjoq8iCvvrE+jVHGz4uJ55hVekM3eCAYLGkkNE60CdPg2wSHelkfa+TuTdAu7qEZ+5H+al23Y7vB00WymAXfOZJmWpoO4t/48BGfOTayRImcV/S1Kd8eysZDFEOGfsaGP+7j/CgAA//+mgJC8kAEAAA==';
const GZIP_RELATED =
  'data:application/gzip;base64,H4sIAAAAAAAA/8zQ326bMBTH8XfxbpMF2JrW3IVC0kyBxKG4wBRNYJuYP8GUGjuk4t2n9a7qC+z+6Hs++r2DpmzrNyaB/fsdZC3hogc24I09eKV7hNIs4mWVXTbMCuvHXML5OvTEdjSQuzWdbrSWt9YykUBgBrpeFGXDPkq8Z8W/jpTdm71Y6B8l/S7680L0+TdlgOk0A0P36fLj4wqvDrxi2o9Upl3j3Mz9xL+p5wMeopXpdnszvDivZJNzpe1BoLnDPCno01GTm1A7C45JeVfnlsmzl5/j7hKoPIRVEvuKRrhDOHWiDX9NYxrgOOXUQDq1tHzGTcDaNIrWqYkj73p8cg4+DiRq19XR+iVoS8A0+0pFn6m7/4V6mgFVZl/XfcQ4nLeGvhr7gnmx48OKbII98b1VnyQvh+21vnP/NHA5hmebElZQRtgDZMM9fLgH02k6TX8DAAD//5qrxNEwAgAA';

describe('anchor linkset (orb vectors)', () => {
  it('hashes the canonical content object to the anchor', () => {
    expect(contentAnchor(ORIGINAL)).toBe(ANCHOR);
  });

  it('builds the anchor link with form-escaped JSON data URIs byte for byte', () => {
    const link = buildAnchorLink({
      content: ORIGINAL,
      author: AUTHOR,
      coreIndexHashlink: CORE_INDEX_WITH_METADATA,
      parents: [UP_1, UP_2],
      credential: REPLY,
      encoding: 'json',
    });
    expect(canonicalize({ linkset: [link] })).toBe(canonicalize(LINKSET_URL_ENCODED));
  });

  it("builds gzip data URIs that decode to the same canonical parts as Orb's", () => {
    const link = buildAnchorLink({
      content: ORIGINAL,
      author: AUTHOR,
      coreIndexHashlink: CORE_INDEX_WITH_METADATA,
      parents: [UP_1, UP_2],
      credential: REPLY,
      encoding: 'gzip',
    });
    expect(link.anchor).toBe(ANCHOR);
    expect(decodeDataUri(link.original[0]!.href).toString()).toBe(decodeDataUri(GZIP_ORIGINAL).toString());
    expect(decodeDataUri(link.related[0]!.href).toString()).toBe(decodeDataUri(GZIP_RELATED).toString());
    expect(decodeDataUri(link.replies[0]!.href).toString()).toBe(canonicalize(REPLY));
  });

  it('writes the related linkset without `up` when the batch has no parents', () => {
    expect(buildRelatedLinkset({ anchor: ANCHOR, coreIndexHashlink: CORE_INDEX_WITH_METADATA, parents: [] })).toEqual({
      linkset: [{ anchor: ANCHOR, profile: [{ href: ANCHOR_PROFILE }], via: [{ href: CORE_INDEX_WITH_METADATA }] }],
    });
  });
});

describe("content object (Orb's did:orb generator)", () => {
  const casLink = (hash: string) => `https://node1.example.com/cas/${hash}`;
  const previousHash = multibaseMultihash('previous anchor');
  const previous = `hl:${previousHash}:${hashlinkMetadata([casLink(previousHash)])}`;
  const coreIndexHash = multibaseMultihash('core index');
  const coreIndexHashlink = `hl:${coreIndexHash}:${hashlinkMetadata([casLink(coreIndexHash)])}`;

  it('names creates by uAAA and later operations by their previous anchor, without hashlink metadata', () => {
    const content = buildContentObject({
      coreIndexHashlink,
      author: 'https://node1.example.com/services/node',
      namespace: 'did:node',
      items: [{ suffix: 'EiA1' }, { suffix: 'EiB2', previous }],
    });
    expect(content).toEqual({
      linkset: [
        {
          anchor: `hl:${coreIndexHash}`,
          author: [{ href: 'https://node1.example.com/services/node' }],
          item: [
            { href: 'did:node:uAAA:EiA1' },
            { href: `did:node:${previousHash}:EiB2`, previous: [`hl:${previousHash}`] },
          ],
          profile: [{ href: ANCHOR_PROFILE }],
        },
      ],
    });
  });

  it('lists each parent once, in batch order', () => {
    expect(
      parentsOf([
        { suffix: 'a', previous: UP_2 },
        { suffix: 'b' },
        { suffix: 'c', previous: UP_1 },
        { suffix: 'd', previous: UP_2 },
      ]),
    ).toEqual([UP_2, UP_1]);
  });
});

describe('reading an anchor linkset', () => {
  const coreIndexHash = multibaseMultihash('core index');
  const coreIndexHashlink = `hl:${coreIndexHash}:${hashlinkMetadata([`https://node1.example.com/cas/${coreIndexHash}`])}`;
  const content = buildContentObject({
    coreIndexHashlink,
    author: AUTHOR,
    namespace: 'did:node',
    items: [{ suffix: 'EiA1' }],
  });
  const credential = {
    '@context': ['https://www.w3.org/2018/credentials/v1'],
    credentialSubject: { href: contentAnchor(content) },
  };
  const build = (encoding: 'gzip' | 'json') => ({
    linkset: [buildAnchorLink({ content, author: AUTHOR, coreIndexHashlink, parents: [UP_1], credential, encoding })],
  });

  it('takes apart what the builder makes, in both encodings', () => {
    for (const encoding of ['gzip', 'json'] as const) {
      const read = readAnchorLinkset(build(encoding), 'did:node');
      expect(read.anchor).toBe(contentAnchor(content));
      expect(read.author).toBe(AUTHOR);
      expect(read.coreIndexHashlink).toBe(coreIndexHashlink);
      expect(read.parents).toEqual([UP_1]);
      expect(read.items).toEqual([{ suffix: 'EiA1', previousHash: undefined }]);
      expect(read.credential).toEqual(credential);
    }
  });

  it('refuses a linkset whose original does not hash to the anchor', () => {
    const linkset = build('json');
    linkset.linkset[0]!.anchor = `hl:${multibaseMultihash('something else')}`;
    expect(() => readAnchorLinkset(linkset, 'did:node')).toThrow(/'original' content does not match the anchor hash/);
  });

  it('refuses an unknown profile, a related linkset naming another anchor, and foreign DIDs', () => {
    const wrongProfile = build('json');
    wrongProfile.linkset[0]!.profile = [{ href: 'https://example.com/profile' }];
    expect(() => readAnchorLinkset(wrongProfile, 'did:node')).toThrow(/unsupported anchor profile/);

    const otherRelated = build('json');
    otherRelated.linkset[0]!.related = buildAnchorLink({
      content: buildContentObject({
        coreIndexHashlink,
        author: AUTHOR,
        namespace: 'did:node',
        items: [{ suffix: 'EiB9' }],
      }),
      author: AUTHOR,
      coreIndexHashlink,
      parents: [],
      credential,
      encoding: 'json',
    }).related;
    expect(() => readAnchorLinkset(otherRelated, 'did:node')).toThrow(/anchor of the 'related' linkset/);

    expect(() => readAnchorLinkset(build('json'), 'did:other')).toThrow(/is not a did:other DID/);
  });

  it('refuses structural problems as permanent errors', () => {
    expect(() => readAnchorLinkset({ linkset: [] }, 'did:node')).toThrow(/exactly one link/);
    const noReplies = build('json') as unknown as { linkset: Array<Record<string, unknown>> };
    delete noReplies.linkset[0]!.replies;
    expect(() => readAnchorLinkset(noReplies, 'did:node')).toThrow(/'replies' must hold exactly one reference/);
    let thrown: unknown;
    try {
      readAnchorLinkset({ linkset: 'x' }, 'did:node');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ status: 422, retryable: false });
  });
});
