import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { historyDid } from './history/history.js';
import { DidHistorySection } from './history/timeline.js';
import { resolutionUrl } from './node-address.js';

type Lookup =
  | { state: 'idle' }
  | { state: 'loading'; did: string }
  | { state: 'found'; did: string; result: ResolutionResult }
  | { state: 'missing'; did: string; message: string }
  | { state: 'failed'; did: string; message: string };

interface ResolutionResult {
  didDocument?: unknown;
  didDocumentMetadata?: Record<string, unknown>;
}

/** The error message of a node's `{"message"}` answer, or its status line when the body says nothing. */
async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the status says it
  }
  return `${response.status} ${response.statusText}`;
}

async function resolve(base: string, did: string): Promise<Lookup> {
  let response: Response;
  try {
    response = await fetch(resolutionUrl(base, did), { headers: { accept: 'application/json' } });
  } catch (error) {
    return { state: 'failed', did, message: `the node at ${base} does not answer (${String(error)})` };
  }
  if (response.status === 404 || response.status === 410) {
    return { state: 'missing', did, message: await errorMessage(response) };
  }
  if (response.status === 400) return { state: 'missing', did, message: await errorMessage(response) };
  if (!response.ok) return { state: 'failed', did, message: await errorMessage(response) };
  return { state: 'found', did, result: (await response.json()) as ResolutionResult };
}

function json(label: string, value: unknown): ComponentChild {
  return h('section', { 'aria-label': label }, [
    h('h3', null, label),
    h('pre', { tabIndex: 0, class: 'json' }, JSON.stringify(value, null, 2)),
  ]);
}

/** The DID page: a search box (any form of a DID), then the document and its metadata, or why there is none. */
export function DidPage(props: { base: string; initial: string }): ComponentChild {
  const [query, setQuery] = useState(props.initial);
  const [lookup, setLookup] = useState<Lookup>({ state: 'idle' });

  const run = (did: string): void => {
    if (did.trim() === '') return;
    const url = new URL(window.location.href);
    url.searchParams.set('did', did.trim());
    window.history.replaceState(null, '', url);
    setLookup({ state: 'loading', did });
    void resolve(props.base, did).then(setLookup);
  };
  useEffect(() => run(props.initial), []);

  return h('div', null, [
    h(
      'form',
      {
        role: 'search',
        onSubmit: (event: Event) => {
          event.preventDefault();
          run(query);
        },
      },
      [
        h('label', { for: 'did-query' }, 'DID (any form: uAAA, canonical, hashlink, https hint, did:web)'),
        h('input', {
          id: 'did-query',
          name: 'did',
          value: query,
          autoComplete: 'off',
          spellcheck: false,
          onInput: (event: Event) => setQuery((event.target as HTMLInputElement).value),
        }),
        h('button', { type: 'submit' }, 'Find'),
      ],
    ),
    h('div', { role: 'status', 'aria-live': 'polite', id: 'did-status' }, statusLine(lookup)),
    lookup.state === 'found'
      ? h('article', { 'aria-label': 'DID' }, [
          h('h2', { class: 'did' }, didOf(lookup.result) ?? lookup.did),
          published(lookup.result),
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
      return 'Enter a DID to look it up.';
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
  const id = (result.didDocument as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

function published(result: ResolutionResult): ComponentChild {
  const method = result.didDocumentMetadata?.['method'] as { published?: unknown } | undefined;
  const isPublished = method?.published === true;
  return h(
    'p',
    { class: isPublished ? 'ok' : 'pending', id: 'did-published' },
    isPublished ? 'Published' : 'Not yet published',
  );
}
