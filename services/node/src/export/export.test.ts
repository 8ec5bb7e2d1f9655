import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeAdminClient } from '@anchor/common/clients';
import { waitFor } from '@anchor/testing/process';
import { EXPORT_SYNC_STORE, type ExportPosition } from './export-catch-up.js';
import {
  postOperation,
  resolveDid,
  startTestNode,
  TestDid,
  waitPublished,
  type TestNode,
} from '../testing/test-node.js';

interface Item {
  cursor: string;
  suffix: string;
  type: string;
  anchor: string;
  transactionNumber: number;
  operationIndex: number;
  operation: Record<string, unknown>;
}
interface Anchor {
  anchor: string;
  hashlink: string;
  transactionNumber: number;
  operationCount: number;
  linkset: { linkset: unknown[] };
  files?: Array<{ hash: string; content: string }>;
}
interface Page {
  items: Item[];
  anchors: Anchor[];
  cursor: string;
  more: boolean;
}

async function page(url: string, query: string): Promise<Page> {
  const response = await fetch(`${url}/sidetree/v1/export${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

async function allPages(url: string, count: number, after = ''): Promise<Page[]> {
  const pages: Page[] = [];
  for (let cursor = after; ;) {
    const next = await page(url, `?count=${count}&after=${cursor}`);
    pages.push(next);
    cursor = next.cursor;
    if (!next.more) return pages;
  }
}

/** Reads Server-Sent Events from a response body until `until` says enough. */
async function readEvents(
  response: Response,
  until: (events: Array<{ id?: string; event?: string; data: string }>) => boolean,
): Promise<Array<{ id?: string; event?: string; data: string }>> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id?: string; event?: string; data: string }> = [];
  let buffer = '';
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: { id?: string; event?: string; data: string } = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) event.data += line.slice(6);
      }
      if (event.event !== undefined) events.push(event);
    }
  }
  await reader.cancel();
  return events;
}

describe('the export for mirrors', () => {
  let source: TestNode;
  let mirror: TestNode;
  const dids: TestDid[] = [];

  beforeAll(async () => {
    // Small batches, so the history has several anchors and anchors span pages.
    source = await startTestNode({ args: ['--max-operations-per-batch', '4'] });
    mirror = await startTestNode({
      args: ['--auth-tokens-def', '/sidetree/v1/import||admin', '--auth-tokens', 'admin=m1rror'],
    });
    for (let i = 0; i < 10; i++) {
      const did = new TestDid(source.url);
      expect((await postOperation(source.url, did.created.request)).status).toBe(200);
      dids.push(did);
    }
    for (const did of dids) await waitPublished(source.url, did.did);
    // Two updates of one DID: three anchors hold its operations.
    for (const keyId of ['key-2', 'key-3']) {
      expect((await postOperation(source.url, dids[0]!.update(keyId))).status).toBe(200);
      await waitPublished(source.url, dids[0]!.did, keyId === 'key-2' ? 2 : 3);
    }
  }, 60_000);
  afterAll(async () => {
    await mirror?.stop();
    await source?.stop();
  });

  it('pages through every operation once, in anchor order, by a monotonic cursor', async () => {
    const pages = await allPages(source.url, 3);
    const items = pages.flatMap((p) => p.items);
    expect(items).toHaveLength(12);
    expect(pages.every((p) => p.items.length <= 3)).toBe(true);
    expect(pages.at(-1)!.more).toBe(false);
    const order = items.map((item) => [item.transactionNumber, item.operationIndex] as const);
    const sorted = [...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(order).toEqual(sorted);
    expect(new Set(items.map((item) => item.cursor)).size).toBe(items.length);
    expect(
      items
        .filter((item) => item.type === 'create')
        .map((item) => item.suffix)
        .sort(),
    ).toEqual(dids.map((did) => did.suffix).sort());
    expect(items.filter((item) => item.type === 'update').map((item) => item.suffix)).toEqual([
      dids[0]!.suffix,
      dids[0]!.suffix,
    ]);
    // The operation is the request as anchored.
    const create = items.find((item) => item.suffix === dids[1]!.suffix)!;
    expect(create.operation).toEqual(JSON.parse(JSON.stringify(dids[1]!.created.request)));
    // One page with the default count holds everything.
    const whole = await page(source.url, '');
    expect(whole.items.map((item) => item.cursor)).toEqual(items.map((item) => item.cursor));
    expect(whole.more).toBe(false);
  });

  it("carries each anchor's linkset, and its files where the anchor begins", async () => {
    const pages = await allPages(source.url, 3);
    for (const p of pages) {
      const anchors = new Map(p.anchors.map((anchor) => [anchor.anchor, anchor]));
      for (const item of p.items) expect(anchors.has(item.anchor)).toBe(true);
      for (const anchor of p.anchors) {
        expect(anchor.linkset.linkset).toHaveLength(1);
        const first = p.items.some((item) => item.anchor === anchor.anchor && item.operationIndex === 0);
        expect(anchor.files !== undefined).toBe(first);
      }
    }
    const withFiles = pages.flatMap((p) => p.anchors).filter((anchor) => anchor.files);
    expect(new Set(withFiles.map((anchor) => anchor.anchor)).size).toBe(withFiles.length);
    const cas = await fetch(`${source.url}/cas/${withFiles[0]!.files![0]!.hash}`);
    expect(Buffer.from(await cas.arrayBuffer()).toString('base64')).toBe(withFiles[0]!.files![0]!.content);
  });

  it('resumes after any cursor, and answers an empty page at the end', async () => {
    const items = (await allPages(source.url, 1_000)).flatMap((p) => p.items);
    for (const at of [0, 4, 7]) {
      const rest = (await allPages(source.url, 2, items[at]!.cursor)).flatMap((p) => p.items);
      expect(rest.map((item) => item.cursor)).toEqual(items.slice(at + 1).map((item) => item.cursor));
    }
    const end = await page(source.url, `?after=${items.at(-1)!.cursor}`);
    expect(end).toMatchObject({ items: [], anchors: [], cursor: items.at(-1)!.cursor, more: false });
  });

  it('refuses a malformed cursor or count with 400', async () => {
    for (const query of [
      '?after=abc',
      '?after=0:0',
      '?after=3',
      '?after=1:-1',
      '?after=1:2&after=1:3',
      '?count=0',
      '?count=1001',
      '?count=ten',
    ]) {
      const response = await fetch(`${source.url}/sidetree/v1/export${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { message: string }).message, query).toMatch(/after|count/);
      const stream = await fetch(`${source.url}/sidetree/v1/export/stream${query}`);
      expect(stream.status, `stream ${query}`).toBe(400);
    }
  });

  it('streams the history as events, then new anchors as they are committed, resumable by Last-Event-ID', async () => {
    const before = (await allPages(source.url, 1_000)).flatMap((p) => p.items);
    const controller = new AbortController();
    const response = await fetch(`${source.url}/sidetree/v1/export/stream?count=5`, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const late = new TestDid(source.url);
    let posted = false;
    const events = await readEvents(response, (seen) => {
      const items = seen.flatMap((event) => (JSON.parse(event.data) as Page).items);
      if (!posted && items.length >= before.length) {
        posted = true;
        void postOperation(source.url, late.created.request);
      }
      return items.some((item) => item.suffix === late.suffix);
    });
    controller.abort();
    const streamed = events.flatMap((event) => (JSON.parse(event.data) as Page).items);
    expect(streamed.map((item) => item.cursor).slice(0, before.length)).toEqual(before.map((item) => item.cursor));
    expect(streamed.at(-1)!.suffix).toBe(late.suffix);
    expect(
      events.every((event) => event.event === 'page' && event.id === (JSON.parse(event.data) as Page).cursor),
    ).toBe(true);

    // Reconnecting with the id of an earlier event goes on from there.
    const resumed = await fetch(`${source.url}/sidetree/v1/export/stream`, {
      headers: { 'last-event-id': events[0]!.id! },
    });
    const again = await readEvents(resumed, (seen) =>
      seen.flatMap((event) => (JSON.parse(event.data) as Page).items).some((item) => item.suffix === late.suffix),
    );
    expect(again.flatMap((event) => (JSON.parse(event.data) as Page).items).map((item) => item.cursor)).toEqual(
      streamed.slice(5).map((item) => item.cursor),
    );
  });

  it('builds a mirror that resolves every DID as the source does', async () => {
    const post = (body: unknown, token = 'm1rror') =>
      fetch(`${mirror.url}/sidetree/v1/import`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      });
    expect((await post({ anchors: [] }, 'wrong')).status).toBe(401);
    const pages = await allPages(source.url, 3);

    // A tampered batch file, or a linkset that does not hash to its anchor, is refused and nothing is kept.
    const first = pages[0]!.anchors[0]!;
    const badFile = { ...first, files: first.files!.map((file, i) => (i === 0 ? { ...file, content: 'AAAA' } : file)) };
    const refused = await post({ anchors: [badFile] });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/does not hash/);
    const badLinkset = { ...first, linkset: { linkset: [] } };
    expect((await post({ anchors: [badLinkset] })).status).toBe(400);
    expect((await post({ anchors: [{ ...first, files: undefined }] })).status).toBe(400);
    expect((await post({ items: [] })).status).toBe(400);
    expect((await fetch(`${mirror.url}/sidetree/v1/export`).then((r) => r.json())) as Page).toMatchObject({
      items: [],
    });

    let imported = 0;
    for (const p of pages) {
      const answer = await post(p);
      expect(answer.status, await answer.clone().text()).toBe(200);
      imported += ((await answer.json()) as { operations: number }).operations;
    }
    expect(imported).toBeGreaterThanOrEqual(12);
    // Pages imported again change nothing.
    expect(await (await post(pages[0])).json()).toMatchObject({ imported: 0 });

    // Exactly, but for the mirror's own address in the https-hinted equivalent id.
    const hostOf = (url: string) => encodeURIComponent(new URL(url).host);
    for (const did of dids) {
      const here = await resolveDid(source.url, did.did);
      const there = await resolveDid(mirror.url, did.did);
      expect(there.status).toBe(200);
      expect(there.text.replaceAll(hostOf(mirror.url), hostOf(source.url))).toBe(here.text);
    }
    // And its own export is the source's.
    await waitFor(async () => (await page(mirror.url, '')).items.length >= 12, { timeoutMs: 5_000 });
    const mine = (await page(mirror.url, '')).items.map((item) => [item.suffix, item.type, item.operationIndex]);
    const theirs = pages.flatMap((p) => p.items).map((item) => [item.suffix, item.type, item.operationIndex]);
    expect(mine.slice(0, theirs.length)).toEqual(theirs);
  });

  it("catches a new follower up through its followee's export, verified as any announced anchor", async () => {
    const follower = await startTestNode({ args: ['--sync-interval', '300ms', '--sync-min-activity-age', '0s'] });
    try {
      const sourceId = await new NodeAdminClient({ url: source.url }).serviceId();
      const admin = new NodeAdminClient({ url: follower.url });
      await admin.follow(sourceId);
      await admin.waitUntilIn('following', sourceId, 15_000);
      for (const did of dids) await waitPublished(follower.url, did.did, did === dids[0] ? 3 : 1);
      const positions = await follower.server.context.storage.open<ExportPosition>(EXPORT_SYNC_STORE);
      const last = await page(source.url, '');
      await waitFor(async () => (await positions.get(sourceId))?.cursor === last.cursor, { timeoutMs: 10_000 });
      const hostOf = (url: string) => encodeURIComponent(new URL(url).host);
      const here = await resolveDid(source.url, dids[0]!.did);
      const there = await resolveDid(follower.url, dids[0]!.did);
      expect(JSON.parse(there.text.replaceAll(hostOf(follower.url), hostOf(source.url))).didDocument).toEqual(
        JSON.parse(here.text).didDocument,
      );
      admin.close();
    } finally {
      await follower.stop();
    }
  }, 60_000);
});
