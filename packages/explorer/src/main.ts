import { h, render, type ComponentChild } from 'preact';
import { AnchorPage } from './anchor-view.js';
import { AnchorsPage } from './anchors-page.js';
import { DidPage } from './did-page.js';
import { FederationPage } from './federation-page.js';
import { Layout, type View } from './layout.js';
import { nodeBase } from './node-address.js';
import { LogPage } from './log-page.js';
import { NodePage } from './node-page.js';

const root = document.getElementById('app');
if (root === null) throw new Error('the page has no #app element');
try {
  const base = nodeBase(window.location.href);
  const params = new URL(window.location.href).searchParams;
  const did = params.get('did') ?? '';
  const anchor = params.get('anchor');
  const requested = params.get('view');
  // One view per page load: every link and search is a plain URL, so the back button and bookmarks work.
  let view: View = 'did';
  let page: ComponentChild;
  if (anchor !== null) {
    view = 'anchor';
    page = h(AnchorPage, { base, anchor });
  } else if (requested === 'anchors') {
    view = 'anchors';
    const before = Number.parseInt(params.get('before') ?? '', 10);
    page = h(AnchorsPage, { base, before: Number.isSafeInteger(before) && before > 0 ? before : undefined });
  } else if (requested === 'federation') {
    view = 'federation';
    page = h(FederationPage, { base });
  } else if (requested === 'log') {
    view = 'log';
    page = h(LogPage, { base });
  } else if (requested === 'node') {
    view = 'node';
    page = h(NodePage, { base });
  } else {
    page = h(DidPage, { base, did });
  }
  document.title = `${view === 'did' ? 'DIDs' : view[0]!.toUpperCase() + view.slice(1)} · Federation explorer`;
  render(h(Layout, { base, view, query: did || (anchor ?? ''), children: page }), root);
} catch (error) {
  root.textContent = error instanceof Error ? error.message : String(error);
}
