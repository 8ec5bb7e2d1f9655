import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { AnchorDetails, loadAnchor } from './anchor-view.js';
import { historyDid } from './history/history.js';
import { DidHistorySection } from './history/timeline.js';
import { didLink } from './layout.js';
import type { AnchorSummary } from './linkset.js';
import { didWebForm, resolutionUrl } from './node-address.js';

type Lookup =
  | { state: 'idle' }
  | { state: 'loading'; did: string }
  | { state: 'found'; did: string; result: ResolutionResult }
  | { state: 'missing'; did: string; message: string }
  | { state: 'failed'; did: string; message: string };

interface PublishedOperation {
  canonicalReference?: string;
  type?: string;
}

interface ResolutionResult {
  didDocument?: { id?: unknown };
  didDocumentMetadata?: {
    canonicalId?: unknown;
    equivalentId?: unknown;
    deactivated?: unknown;
    method?: { published?: unknown; publishedOperations?: PublishedOperation[] };
  };
}

async function resolve(base: string, did: string): Promise<Lookup> {
  const fetched = await getJson<ResolutionResult>(resolutionUrl(base, did));
  if (fetched.ok) return { state: 'found', did, result: fetched.value };
  // 400 malformed, 404 unknown, 410 deactivated: the node's message says which.
  if ([400, 404, 410].includes(fetched.status)) return { state: 'missing', did, message: fetched.message };
  return { state: 'failed', did, message: fetched.message };
}

function json(label: string, value: unknown): ComponentChild {
  return h('section', { 'aria-label': label }, [
    h('h3', null, label),
    h('pre', { tabIndex: 0, class: 'json', 'aria-label': `${label} as JSON` }, JSON.stringify(value, null, 2)),
  ]);
}

/** Every form the DID is known by on this node: its id, canonical and equivalent ids, its did:web form. */
function forms(base: string, result: ResolutionResult): string[] {
  const metadata = result.didDocumentMetadata ?? {};
  const all = [
    result.didDocument?.id,
    metadata.canonicalId,
    ...(Array.isArray(metadata.equivalentId) ? metadata.equivalentId : []),
  ];
  const ids = all.filter((id): id is string => typeof id === 'string');
  // From the short form: a long-form id ends in its encoded create, not in its suffix.
  const short = typeof metadata.canonicalId === 'string' ? metadata.canonicalId : ids[0];
  const web = short !== undefined ? didWebForm(base, short) : undefined;
  if (web !== undefined) ids.push(web);
  return [...new Set(ids)];
}

/** The DID page (`?did=<any form>`): published or not, its forms, its anchor and witnesses, document, metadata. */
export function DidPage(props: { base: string; did: string }): ComponentChild {
  const [lookup, setLookup] = useState<Lookup>({ state: 'idle' });
  const [anchor, setAnchor] = useState<{ ref: string; summary?: AnchorSummary; message?: string } | undefined>();

  useEffect(() => {
    const did = props.did.trim();
    if (did === '') return;
    setLookup({ state: 'loading', did });
    void resolve(props.base, did).then((found) => {
      setLookup(found);
      if (found.state !== 'found') return;
      const ops = found.result.didDocumentMetadata?.method?.publishedOperations ?? [];
      const ref = ops.at(-1)?.canonicalReference;
      if (ref === undefined) return;
      setAnchor({ ref });
      void loadAnchor(props.base, ref).then((loaded) =>
        setAnchor(
          loaded.state === 'found'
            ? { ref, summary: loaded.summary }
            : { ref, message: loaded.state === 'failed' ? loaded.message : '' },
        ),
      );
    });
  }, [props.did]);

  return h('div', null, [
    h('h2', null, 'DID'),
    h('div', { role: 'status', 'aria-live': 'polite', id: 'did-status' }, statusLine(lookup)),
    lookup.state === 'found'
      ? h('article', { 'aria-label': 'DID' }, [
          h('p', { class: 'did' }, h('code', null, didOf(lookup.result) ?? lookup.did)),
          published(lookup.result),
          h('section', { 'aria-label': 'Forms' }, [
            h('h3', null, 'Forms'),
            h(
              'ul',
              { id: 'did-forms' },
              forms(props.base, lookup.result).map((form) => h('li', { key: form }, didLink(form))),
            ),
          ]),
          anchor?.summary
            ? h(AnchorDetails, { anchor: anchor.ref, summary: anchor.summary, heading: 'Latest anchor' })
            : anchor?.message
              ? h('p', { role: 'alert' }, `Its anchor ${anchor.ref} could not be read: ${anchor.message}`)
              : null,
          json('Document', lookup.result.didDocument),
          json('Metadata', lookup.result.didDocumentMetadata),
          h(DidHistorySection, { base: props.base, did: historyDid(lookup.did, lookup.result) }),
        ])
      : null,
  ]);
}

function statusLine(lookup: Lookup): string {
  switch (lookup.state) {
    case 'idle':
      return 'Enter a DID or an anchor in the search box.';
    case 'loading':
      return `Looking up ${lookup.did}…`;
    case 'found':
      return `Found ${lookup.did}.`;
    case 'missing':
      return `No DID ${lookup.did} on this node: ${lookup.message}`;
    case 'failed':
      return `Could not look up ${lookup.did}: ${lookup.message}`;
  }
}

function didOf(result: ResolutionResult): string | undefined {
  const id = result.didDocument?.id;
  return typeof id === 'string' ? id : undefined;
}

function published(result: ResolutionResult): ComponentChild {
  const isPublished = result.didDocumentMetadata?.method?.published === true;
  const deactivated = result.didDocumentMetadata?.deactivated === true;
  return h('p', { class: isPublished ? 'ok' : 'pending', id: 'did-published' }, [
    isPublished ? 'Published' : 'Not yet published',
    deactivated ? ' (deactivated)' : '',
  ]);
}
