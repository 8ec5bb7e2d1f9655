import { h, type ComponentChild } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { healthSummary, isHealthy } from './health.js';
import type * as GraphModule from './federation-graph.js';

/** The graph is its own bundle (cytoscape), loaded once the federation is read (the page stays small). */
const GRAPH_URL = new URL('./graph.js', import.meta.url).href;
let graph: Promise<typeof GraphModule> | undefined;
function loadGraph(): Promise<typeof GraphModule> {
  graph ??= import(GRAPH_URL) as Promise<typeof GraphModule>;
  graph.catch(() => (graph = undefined));
  return graph;
}

/**
 * The federation drawn as a graph above the table (which says the same in rows, for a screen reader): the
 * canvas is named by what the graph holds.
 */
function FederationGraph(props: { self: string; peers: readonly Peer[] }): ComponentChild {
  const canvas = useRef<HTMLDivElement>(null);
  const [label, setLabel] = useState<string>('The federation as a graph: drawing…');
  useEffect(() => {
    loadGraph().then(
      (loaded) => {
        if (canvas.current !== null) setLabel(loaded.drawFederation(canvas.current, props.self, props.peers));
      },
      (error: unknown) => setLabel(`The graph could not be drawn: ${(error as Error).message}`),
    );
  }, []);
  return h('figure', { class: 'federation-graph' }, [
    h('div', { ref: canvas, class: 'graph', role: 'img', 'aria-label': label, id: 'federation-graph' }),
    h(
      'figcaption',
      null,
      'Arrows point from the node that follows, or witnesses, to the one it follows or witnesses for.',
    ),
  ]);
}

/** The four collections of the node's service actor that make the federation, with what each means. */
export const RELATIONS = [
  ['followers', 'follows this node'],
  ['following', 'this node follows it'],
  ['witnesses', 'witnesses for this node'],
  ['witnessing', 'this node witnesses for it'],
] as const;
type Relation = (typeof RELATIONS)[number][0];

interface Peer {
  actor: string;
  relations: Relation[];
  /** Its health (`healthOf`), read from the peer's own host. */
  health: string;
}

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; message: string }
  | { state: 'found'; self: { actor: string; health: string }; peers: Peer[] };

interface CollectionPage {
  items?: unknown[];
  orderedItems?: unknown[];
  next?: unknown;
}

/** Every item of a collection, page by page (`?page=true`, then each `next`). */
async function collectionItems(url: string): Promise<string[] | string> {
  const items: string[] = [];
  let next: string | undefined = `${url}?page=true`;
  for (let pages = 0; next !== undefined && pages < 50; pages += 1) {
    const page: Awaited<ReturnType<typeof getJson<CollectionPage>>> = await getJson<CollectionPage>(next);
    if (!page.ok) return page.message;
    for (const item of page.value.items ?? page.value.orderedItems ?? []) {
      const id = typeof item === 'string' ? item : (item as { id?: unknown }).id;
      if (typeof id === 'string') items.push(id);
    }
    next = typeof page.value.next === 'string' ? page.value.next : undefined;
  }
  return items;
}

/** A peer's base URL (its actor is `<base>/services/node`), where its own explorer is. */
function peerBase(actor: string): string {
  return actor.replace(/\/services\/[^/]+$/, '');
}

/**
 * A node's health from its `/healthcheck`, this node's or a peer's (a node answers it to any origin), in a
 * few words (`healthSummary`). A peer whose health cannot be read (an older node without that header, or a
 * network failure, which a browser does not tell apart) is asked for its `/.well-known/did.json`, which every
 * node answers to any origin, to say at least whether it is up.
 */
async function healthOf(base: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${base}/healthcheck`, { headers: { accept: 'application/json' } });
  } catch {
    try {
      const did = await fetch(`${base}/.well-known/did.json`);
      return did.ok ? 'up (its health is not readable from this page)' : `down (${did.status})`;
    } catch {
      return 'does not answer';
    }
  }
  if (response.status === 401 || response.status === 403) return `unknown (its health needs a read token)`;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  return healthSummary(response.status, body);
}

async function loadFederation(base: string): Promise<Loaded> {
  const actor = await getJson<{ id?: unknown }>(`${base}/services/node`);
  if (!actor.ok) return { state: 'failed', message: actor.message };
  const selfId = String(actor.value.id ?? `${base}/services/node`);
  const byActor = new Map<string, Peer>();
  for (const [relation] of RELATIONS) {
    const items = await collectionItems(`${selfId}/${relation}`);
    if (typeof items === 'string') return { state: 'failed', message: `${relation}: ${items}` };
    for (const id of items) {
      const peer = byActor.get(id) ?? { actor: id, relations: [], health: 'unknown' };
      peer.relations.push(relation);
      byActor.set(id, peer);
    }
  }
  const peers = [...byActor.values()].sort((a, b) => a.actor.localeCompare(b.actor));
  const [self] = await Promise.all([
    healthOf(base),
    ...peers.map(async (peer) => (peer.health = await healthOf(peerBase(peer.actor)))),
  ]);
  return { state: 'found', self: { actor: selfId, health: self }, peers };
}

/** The federation page (`?view=federation`): this node and each peer, how they are linked, and their health. */
export function FederationPage(props: { base: string }): ComponentChild {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  useEffect(() => {
    void loadFederation(props.base).then(setLoaded);
  }, []);
  return h('div', null, [
    h('h2', null, 'Federation'),
    h(
      'div',
      { role: 'status', id: 'federation-status' },
      loaded.state === 'loading'
        ? 'Reading the federation…'
        : loaded.state === 'failed'
          ? `Could not read the federation: ${loaded.message}`
          : `This node and ${loaded.peers.length} peer${loaded.peers.length === 1 ? '' : 's'}.`,
    ),
    loaded.state === 'found' ? h(FederationGraph, { self: loaded.self.actor, peers: loaded.peers }) : null,
    loaded.state === 'found'
      ? h('table', { class: 'federation' }, [
          h('caption', null, 'Services of the federation, how each is linked to this node, and its health'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Service', ...RELATIONS.map(([name]) => name), 'Health'].map((name) =>
                h('th', { scope: 'col', key: name }, name),
              ),
            ),
          ),
          h('tbody', null, [
            h('tr', { key: 'self', class: 'self' }, [
              h('th', { scope: 'row' }, [h('code', null, loaded.self.actor), ' (this node)']),
              ...RELATIONS.map(([name]) => h('td', { key: name }, '')),
              h('td', { class: healthClass(loaded.self.health) }, loaded.self.health),
            ]),
            ...loaded.peers.map((peer) =>
              h('tr', { key: peer.actor }, [
                h('th', { scope: 'row' }, h('code', null, peer.actor)),
                ...RELATIONS.map(([name, meaning]) =>
                  h(
                    'td',
                    { key: name },
                    peer.relations.includes(name) ? h('span', { title: meaning }, `yes: ${meaning}`) : 'no',
                  ),
                ),
                h('td', { key: 'health' }, [
                  h('span', { class: healthClass(peer.health) }, peer.health),
                  ' · ',
                  h('a', { href: `${peerBase(peer.actor)}/explorer/?view=federation` }, 'its explorer'),
                ]),
              ]),
            ),
          ]),
        ])
      : null,
  ]);
}

function healthClass(health: string): string {
  return isHealthy(health) ? 'ok' : 'pending';
}
