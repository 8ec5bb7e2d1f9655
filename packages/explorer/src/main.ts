import { h, render } from 'preact';
import { DidPage } from './did-page.js';
import { nodeBase } from './node-address.js';

const root = document.getElementById('app');
if (root === null) throw new Error('the page has no #app element');
try {
  const base = nodeBase(window.location.href);
  const initial = new URL(window.location.href).searchParams.get('did') ?? '';
  render(h(DidPage, { base, initial }), root);
} catch (error) {
  root.textContent = error instanceof Error ? error.message : String(error);
}
