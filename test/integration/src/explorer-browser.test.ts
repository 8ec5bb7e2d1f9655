/**
 * The explorer in a real browser: Debian's chromium, headless, driven by playwright-core, against a local
 * federation (kms, log, two nodes). A DID created with the CLI on node1 is found on node2's explorer by each of
 * its forms, published with both nodes' witness proofs; the anchors and federation pages show it and both
 * nodes; the node page charts its metrics; an unknown DID or anchor gets a clear message; no page logs a
 * console error, axe finds no serious or critical violation, and the keyboard reaches the search box and the
 * links. Screenshots of each page go to test/integration/.artifacts/explorer/.
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStoreProvider } from '@anchor/common/storage';
import { startLocalFederation, type LocalFederation } from '@anchor/dev-env';
import { freePort, makeTempDir, runProcess, waitFor, type TempDir } from '@anchor/testing/process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  chromiumBinary,
  launchChromium,
  screenshot,
  watchedPage,
  type WatchedPage,
} from './browser.test-helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CLI = join(ROOT, 'packages', 'cli', 'dist', 'main.js');
const binary = chromiumBinary();

// Run in the page (a string: this program has no DOM types): the focused element as `tag#id:text`.
const FOCUSED = `(() => {
  const active = document.activeElement;
  if (active === null || active === document.body) return '';
  return active.tagName.toLowerCase() + (active.id ? '#' + active.id : '') + ':' + (active.textContent || '').trim();
})()`;

interface Created {
  did: string;
  longFormDid: string;
  canonicalId: string;
}

describe.skipIf(binary === undefined)('the explorer in headless chromium against a local federation', () => {
  let dir: TempDir;
  let federation: LocalFederation;
  let browser: Browser;
  let node1: string;
  let node2: string;
  let created: Created;
  let forms: Record<string, string>;
  const opened: WatchedPage[] = [];

  /** Opens an explorer URL and waits until the view's status line leaves its loading text. */
  const open = async (url: string, status: string): Promise<Page> => {
    const watched = await watchedPage(browser);
    opened.push(watched);
    await watched.page.goto(url);
    await watched.page
      .locator(status)
      .filter({ hasText: /\S/ })
      .filter({ hasNotText: /^(Looking up|Reading)/ })
      .waitFor({ timeout: 30_000 });
    return watched.page;
  };
  const problemsOf = (page: Page): string[] => opened.find((watched) => watched.page === page)!.problems;
  const expectClean = async (page: Page, name: string): Promise<void> => {
    const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious, JSON.stringify(serious, null, 2)).toEqual([]);
    expect(problemsOf(page)).toEqual([]);
    await screenshot(page, name);
  };

  beforeAll(async () => {
    dir = await makeTempDir('anchor-explorer-browser-');
    federation = await startLocalFederation({
      dataDir: join(dir.path, 'federation'),
      nodes: 2,
      logPort: await freePort(),
      firstNodePort: await freePort(),
      kmsPort: await freePort(),
    });
    [node1, node2] = federation.layout.nodes.map((node) => node.url) as [string, string];
    const run = await runProcess(CLI, {
      args: ['did', 'create', '-n', node1, '-k', join(dir.path, 'alice.json'), '--wait', '--json'],
      env: { NO_COLOR: '1' },
      timeoutMs: 150_000,
    });
    expect(run.code, run.stderr).toBe(0);
    created = JSON.parse(run.stdout) as Created;
    // The other forms as node2 names them: its equivalent ids hold the hashlink and the https hint.
    // node2 learns of the anchor from node1 a moment after node1 reports it published.
    const equivalent = await waitFor(
      async () => {
        const response = await fetch(`${node2}/sidetree/v1/identifiers/${encodeURIComponent(created.did)}`);
        if (!response.ok) return undefined;
        const resolved = (await response.json()) as {
          didDocumentMetadata: { equivalentId?: string[]; method?: { published?: boolean } };
        };
        return resolved.didDocumentMetadata.method?.published ? resolved.didDocumentMetadata.equivalentId : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    const suffix = created.did.split(':').at(-1)!;
    forms = {
      short: created.did,
      long: created.longFormDid,
      canonical: created.canonicalId,
      hashlink: equivalent.find((id) => id.startsWith('did:node:hl:'))!,
      https: equivalent.find((id) => id.startsWith('did:node:https:'))!,
      web: `did:web:${encodeURIComponent(new URL(node2).host)}:scid:${suffix}`,
    };
    for (const [name, form] of Object.entries(forms)) expect(form, name).toBeDefined();
    browser = await launchChromium(binary!);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await federation?.stop();
    await dir?.remove();
  });

  it('finds the DID by each of its forms through the search box, published', async () => {
    const page = await open(`${node2}/explorer/`, '#did-status');
    for (const [name, form] of Object.entries(forms)) {
      await page.fill('#search', form);
      await Promise.all([page.waitForURL(/[?&]did=/), page.press('#search', 'Enter')]);
      await page
        .locator('#did-status')
        .filter({ hasText: /^Found / })
        .waitFor({ timeout: 30_000 });
      expect(await page.textContent('#did-published'), name).toBe('Published');
      // Whatever form was asked, the forms list names the short, canonical and did:web forms.
      const listed = await page.locator('#did-forms a').allTextContents();
      expect(listed, name).toEqual(expect.arrayContaining([forms.canonical, forms.web]));
      expect(problemsOf(page), name).toEqual([]);
    }
  });

  it('shows the DID published with its anchor and both nodes as witnesses, then opens the anchor', async () => {
    const page = await open(`${node2}/explorer/?did=${encodeURIComponent(created.did)}`, '#did-status');
    await page.waitForSelector('section[aria-label="Latest anchor"]');
    const witnesses = await page.locator('section[aria-label="Latest anchor"] .witness').allTextContents();
    expect(witnesses.sort()).toEqual([new URL(node1).host, new URL(node2).host].sort());
    await expectClean(page, 'did');

    await Promise.all([
      page.waitForURL(/[?&]anchor=/),
      page.locator('section[aria-label="Latest anchor"] dd a').first().click(),
    ]);
    await page
      .locator('#anchor-status')
      .filter({ hasText: /^Anchor / })
      .waitFor();
    expect(await page.locator('ul[aria-label="DIDs in the anchor"] a').allTextContents()).toContain(created.did);
    expect((await page.locator('.witness').allTextContents()).length).toBe(2);
    await expectClean(page, 'anchor');
  });

  it("verifies the DID's anchor in the page (Verify): every check passes", async () => {
    // node2's explorer checks node1's anchor: the proofs, policy and log are read from their own hosts.
    const page = await open(`${node2}/explorer/?did=${encodeURIComponent(created.did)}`, '#did-status');
    await page.locator('#verify-button:enabled').click();
    await page
      .locator('#verify-status')
      .filter({ hasText: /\S/ })
      .filter({ hasNotText: /^Verifying/ })
      .waitFor({
        timeout: 60_000,
      });
    const results = await page
      .locator('.verification li.check')
      .evaluateAll((items) =>
        items.map((item) => `${item.getAttribute('data-check')}: ${item.getAttribute('data-result')}`),
      );
    expect(await page.textContent('#verify-status'), results.join('\n')).toBe('Every check made passes.');
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(
      results.filter((result) => !result.endsWith(': pass')),
      results.join('\n'),
    ).toEqual([]);
    // node1 has no policy set (the default applies), so its GET /policy answers 404, which the verifier reads
    // as the default and chromium logs as a console error: that one 404 is allowed, nothing else.
    const policy404 = `status of 404 (Not Found) (${node1}/policy)`;
    const others = problemsOf(page).filter((problem) => !problem.endsWith(policy404));
    problemsOf(page).splice(0, Infinity, ...others);
    await expectClean(page, 'did-verified');
  });

  it("fails the anchor-hash check, with its reason, when node2's stored copy of the anchor linkset is altered", async () => {
    const page = await open(`${node2}/explorer/?did=${encodeURIComponent(created.did)}`, '#did-status');
    const href = await page.locator('section[aria-label="Latest anchor"] dd a').first().getAttribute('href');
    const anchor = new URL(href!, node2).searchParams.get('anchor')!;
    // node2's own store (LMDB under <dataDir>/db, which another process may open beside the running node):
    // its CAS copy of the linkset, its author changed, as a node that rewrote who made the anchor would serve it.
    const storage = await createStoreProvider({
      type: 'lmdb',
      dataDir: join(federation.layout.nodes[1]!.dataDir, 'db'),
    });
    const cas = await storage.open<{ content: string; mediaType: string; size: number }>('cas');
    const original = await cas.get(anchor);
    expect(original, `node2 holds ${anchor}`).toBeDefined();
    const linkset = JSON.parse(Buffer.from(original!.content, 'base64').toString('utf8')) as {
      linkset: { author?: unknown }[];
    };
    linkset.linkset[0]!.author = [{ href: 'https://evil.example/services/node' }];
    const tampered = Buffer.from(JSON.stringify(linkset));
    try {
      await cas.put(anchor, { ...original!, content: tampered.toString('base64'), size: tampered.length });
      await page.locator('#verify-button:enabled').click();
      await page
        .locator('#verify-status')
        .filter({ hasText: /\S/ })
        .filter({ hasNotText: /^Verifying/ })
        .waitFor({ timeout: 60_000 });
      expect(await page.textContent('#verify-status')).toBe('Some checks fail: see the reasons.');
      const check = page.locator(`.verification[data-anchor="${anchor}"] li[data-check="anchor-hash"]`);
      expect(await check.getAttribute('data-result')).toBe('fail');
      expect(await check.locator('.reason').textContent()).toMatch(
        new RegExp(`the anchor linkset hashes to u[\\w-]+, not to the anchor hash ${anchor}$`),
      );
      // The checks that need the credential are not passed on a linkset that failed its hash.
      const others = await page
        .locator(`.verification[data-anchor="${anchor}"] li.check:not([data-check="anchor-hash"])`)
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-result')));
      expect(others.length).toBe(3);
      expect(others).not.toContain('pass');
    } finally {
      await cas.put(anchor, original!);
      await storage.close();
    }
    const policy404 = `status of 404 (Not Found) (${node1}/policy)`;
    const others = problemsOf(page).filter((problem) => !problem.endsWith(policy404));
    problemsOf(page).splice(0, Infinity, ...others);
    await expectClean(page, 'did-tampered');
  });

  it('lists the anchor on the anchors page with its create operation and witnesses', async () => {
    const page = await open(`${node1}/explorer/?view=anchors`, '#anchors-status');
    expect(await page.textContent('#anchors-status')).toMatch(/^Anchors 1 to \d+ of \d+, newest first\.$/);
    const row = page.locator('table.anchors tbody tr', { hasText: created.did.split(':').at(-1)! });
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('create');
    // The chart of operations per anchor is drawn (uPlot's canvas), its numbers also given as text.
    const number = (await row.locator('td').first().textContent())!;
    expect(await page.locator('figure.chart canvas').count()).toBeGreaterThan(0);
    expect(await page.textContent('figure.chart figcaption')).toContain(`anchor ${number}: 1`);
    expect((await row.locator('.witness').allTextContents()).sort()).toEqual(
      [new URL(node1).host, new URL(node2).host].sort(),
    );
    await expectClean(page, 'anchors');
  });

  it('shows both nodes on the federation page, as a graph and a table, linked both ways, and both healthy', async () => {
    const page = await open(`${node1}/explorer/?view=federation`, '#federation-status');
    expect(await page.textContent('#federation-status')).toBe('This node and 1 peer.');
    // The graph (cytoscape, its own bundle): drawn on canvas, named by the nodes and edges it holds.
    await page.locator('#federation-graph[aria-label^="The federation as a graph. Nodes:"]').waitFor();
    expect(await page.locator('#federation-graph canvas').count()).toBeGreaterThan(0);
    const [host1, host2] = [new URL(node1).host, new URL(node2).host];
    const drawn = (await page.getAttribute('#federation-graph', 'aria-label'))!;
    expect(drawn).toContain(`Nodes: ${host1}/services/node (this node), ${host2}/services/node.`);
    for (const [from, to] of [
      [host1, host2],
      [host2, host1],
    ])
      for (const relation of ['follows', 'witnesses for'])
        expect(drawn).toContain(`${from}/services/node ${relation} ${to}/services/node`);
    const rows = page.locator('table.federation tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain(`${node1}/services/node (this node)`);
    const peer = await rows.nth(1).locator('th, td').allTextContents();
    expect(peer[0]).toBe(`${node2}/services/node`);
    // followers, following, witnesses, witnessing: dev-env wires each node both ways.
    expect(peer.slice(1, 5).every((cell) => cell.startsWith('yes'))).toBe(true);
    // Both healths read from each node's /healthcheck, the peer's from its host (it answers any origin).
    expect(await rows.nth(0).locator('td').last().textContent()).toMatch(/^OK( \(.+\))?$/);
    expect(peer[5]).toMatch(/^OK( \(.+\))? · its explorer$/);
    expect(await rows.nth(1).locator('td').last().locator('a').getAttribute('href')).toBe(
      `${node2}/explorer/?view=federation`,
    );
    await expectClean(page, 'federation');
  });

  it("charts the node's metrics and refreshes them", async () => {
    const page = await open(`${node1}/explorer/?view=node`, '#node-status');
    // Two readings at least: the rates are drawn from the second one on.
    await page
      .locator('#node-status')
      .filter({ hasText: /^([2-9]|\d{2,}) readings/ })
      .waitFor({ timeout: 30_000 });
    expect(Number(await page.textContent('#node-accepted'))).toBeGreaterThanOrEqual(1);
    expect(await page.locator('.charts figure canvas').count()).toBe(4);
    expect(await page.textContent('#chart-ops figcaption')).toMatch(/^Operations per second: \d+\.\d\d$/);
    await expectClean(page, 'node');
  });

  it("shows the node's log: its tree size over time, its signed tree heads, what the log monitor saw", async () => {
    const page = await open(`${node1}/explorer/?view=log`, '#log-status');
    expect(await page.textContent('#log-status')).toMatch(/^Tree size [1-9]\d* \(/);
    expect(await page.textContent('#log-url')).toBe(federation.layout.log.logUrl);
    expect(await page.locator('#chart-tree-size canvas').count()).toBe(1);
    expect(await page.locator('table.sths tbody tr').count()).toBeGreaterThanOrEqual(1);
    await page.locator('section[aria-label="Log monitor"] p, #log-monitor').first().waitFor();
    await expectClean(page, 'log');
  });

  it('says plainly that a DID or an anchor does not exist, or that a DID is malformed', async () => {
    const unknown = 'did:node:uAAA:EiAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const page = await open(`${node1}/explorer/?did=${encodeURIComponent(unknown)}`, '#did-status');
    expect(await page.textContent('#did-status')).toMatch(new RegExp(`^No DID ${unknown} on this node: .+`));
    expect(await page.locator('article').count()).toBe(0);
    // The node answers 404 for the resolution: chromium logs that load as a console error, which is the
    // node's answer and not the page's fault; nothing else may be logged.
    expect(problemsOf(page).filter((problem) => !/status of 404/.test(problem))).toEqual([]);
    expect(problemsOf(page).length).toBeGreaterThan(0);
    await screenshot(page, 'did-unknown');

    const malformed = await open(`${node1}/explorer/?did=nope`, '#did-status');
    expect(await malformed.textContent('#did-status')).toMatch(/^No DID nope on this node: .+/);

    // A well-formed sha2-256 hash no anchor has, and a malformed one.
    const absent = `u${Buffer.concat([Buffer.from([0x12, 0x20]), randomBytes(32)]).toString('base64url')}`;
    const anchor = await open(`${node1}/explorer/?anchor=${absent}`, '#anchor-status');
    expect(await anchor.textContent('#anchor-status')).toBe(`No anchor found: this node holds no anchor ${absent}`);
    const bad = await open(`${node1}/explorer/?anchor=uEiAnope`, '#anchor-status');
    expect(await bad.textContent('#anchor-status')).toMatch(/^No anchor found: .*not a content hash/);
    for (const other of [malformed, anchor, bad]) {
      expect(problemsOf(other).filter((problem) => !/status of 40[04]/.test(problem))).toEqual([]);
    }
  });

  it('reaches the views, the search box and the DID links with the keyboard alone', async () => {
    const page = await open(`${node2}/explorer/?did=${encodeURIComponent(created.did)}`, '#did-status');
    await page.waitForSelector('section[aria-label="Latest anchor"]');
    const reached: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate<string>(FOCUSED));
    }
    expect(reached).toEqual(expect.arrayContaining(['a:DIDs', 'a:Anchors', 'a:Federation', 'input#search:']));
    expect(reached.some((entry) => entry === `a:${forms.canonical}`)).toBe(true);
    // Enter on a focused link follows it.
    await page.focus('nav[aria-label="Explorer"] a:text("Anchors")');
    await Promise.all([page.waitForURL(/view=anchors/), page.keyboard.press('Enter')]);
  });

  it('has an axe check that does see a violation when the page has one', async () => {
    const page = await open(`${node1}/explorer/?view=anchors`, '#anchors-status');
    await page.evaluate(
      `document.querySelector('main').append(Object.assign(document.createElement('img'), { src: 'data:,' }))`,
    );
    const ids = (await axeViolations(page)).filter((v) => v.impact === 'critical').map((v) => v.id);
    expect(ids).toContain('image-alt');
  });
});
