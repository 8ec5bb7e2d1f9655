import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { OperationsChart } from './anchors-chart.js';
import { WitnessList } from './anchor-view.js';
import { anchorLink, didLink } from './layout.js';
import { summarizeAnchor, type Witness } from './linkset.js';
import { viewHref } from './node-address.js';

/** Anchors a page shows. */
export const ANCHORS_PER_PAGE = 10;

interface ExportPage {
  items: Array<{ cursor: string; suffix: string; type: string; anchor: string; transactionNumber: number }>;
  anchors: Array<{
    anchor: string;
    transactionNumber: number;
    transactionTime: number;
    operationCount: number;
    linkset: unknown;
  }>;
  more: boolean;
  latestTransactionNumber: number;
}

interface AnchorRow {
  anchor: string;
  transactionNumber: number;
  time: string;
  operations: Array<{ type: string; suffix: string }>;
  operationCount: number;
  witnesses: Witness[];
}

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; message: string }
  | { state: 'found'; rows: AnchorRow[]; latest: number; before: number; from: number };

/**
 * The export's window of transaction numbers (from, before]: the export pages forward from a cursor, so the
 * most recent anchors are read from `after=<from>:<past any index>`, newest shown first.
 */
async function loadAnchors(base: string, requested: number | undefined): Promise<Loaded> {
  const head = await getJson<ExportPage>(`${base}/sidetree/v1/export?count=1`);
  if (!head.ok) return { state: 'failed', message: head.message };
  const latest = head.value.latestTransactionNumber;
  const before = Math.min(requested ?? latest, latest);
  const from = Math.max(before - ANCHORS_PER_PAGE, 0);
  if (before <= 0) return { state: 'found', rows: [], latest, before, from };
  const after = from === 0 ? '' : `${from}:${Number.MAX_SAFE_INTEGER}`;
  const page = await getJson<ExportPage>(`${base}/sidetree/v1/export?after=${encodeURIComponent(after)}&count=1000`);
  if (!page.ok) return { state: 'failed', message: page.message };
  const rows: AnchorRow[] = [];
  for (const anchor of page.value.anchors) {
    if (anchor.transactionNumber > before) continue;
    const summary = await summarizeAnchor(anchor.linkset).catch(() => undefined);
    rows.push({
      anchor: anchor.anchor,
      transactionNumber: anchor.transactionNumber,
      time: new Date(anchor.transactionTime * 1000).toISOString(),
      operations: page.value.items
        .filter((item) => item.anchor === anchor.anchor)
        .map((item) => ({ type: item.type, suffix: item.suffix })),
      operationCount: anchor.operationCount,
      witnesses: summary?.witnesses ?? [],
    });
  }
  rows.sort((a, b) => b.transactionNumber - a.transactionNumber);
  return { state: 'found', rows, latest, before, from };
}

/** The anchors page (`?view=anchors[&before=<transaction number>]`): the most recent anchors, paged. */
export function AnchorsPage(props: { base: string; before: number | undefined }): ComponentChild {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  useEffect(() => {
    void loadAnchors(props.base, props.before).then(setLoaded);
  }, [props.before]);
  const here = window.location.href;
  return h('div', null, [
    h('h2', null, 'Recent anchors'),
    h(
      'div',
      { role: 'status', id: 'anchors-status' },
      loaded.state === 'loading'
        ? 'Reading the anchors…'
        : loaded.state === 'failed'
          ? `Could not read the anchors: ${loaded.message}`
          : loaded.rows.length === 0
            ? 'This node has no anchors yet.'
            : `Anchors ${loaded.from + 1} to ${loaded.before} of ${loaded.latest}, newest first.`,
    ),
    loaded.state === 'found' && loaded.rows.length > 0
      ? h(OperationsChart, {
          points: loaded.rows.map((row) => ({
            transactionNumber: row.transactionNumber,
            operations: row.operationCount,
          })),
        })
      : null,
    loaded.state === 'found' && loaded.rows.length > 0
      ? h('table', { class: 'anchors' }, [
          h('caption', null, 'Anchors with their operations and witnesses'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['#', 'Anchor', 'Time', 'Operations', 'Witnesses'].map((name) =>
                h('th', { scope: 'col', key: name }, name),
              ),
            ),
          ),
          h(
            'tbody',
            null,
            loaded.rows.map((row) =>
              h('tr', { key: row.anchor }, [
                h('td', null, String(row.transactionNumber)),
                h('td', null, anchorLink(row.anchor)),
                h('td', null, row.time),
                h('td', null, [
                  h(
                    'ul',
                    null,
                    row.operations.map((op) =>
                      h('li', { key: `${op.type}:${op.suffix}` }, [
                        `${op.type} `,
                        didLink(`did:node:uAAA:${op.suffix}`),
                      ]),
                    ),
                  ),
                  row.operations.length < row.operationCount ? `(${row.operationCount} in all)` : null,
                ]),
                h('td', null, h(WitnessList, { witnesses: row.witnesses })),
              ]),
            ),
          ),
        ])
      : null,
    loaded.state === 'found'
      ? h('nav', { 'aria-label': 'Anchor pages', class: 'pager' }, [
          loaded.before < loaded.latest
            ? h('a', { href: viewHref(here, { view: 'anchors' }) }, 'Newest anchors')
            : null,
          loaded.from > 0
            ? h('a', { href: viewHref(here, { view: 'anchors', before: String(loaded.from) }) }, 'Older anchors')
            : null,
        ])
      : null,
  ]);
}
