import { h, type ComponentChild } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from './api.js';
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
  /** `up`, or why not: read from the peer's own host. */
  reachable: string;
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

/** A service's own health report (`/healthcheck`, same origin): its status, or why there is none. */
async function ownHealth(base: string): Promise<string> {
  const report = await getJson<{ status?: unknown }>(`${base}/healthcheck`);
  if (report.ok) return String(report.value.status ?? 'unknown');
  return report.status === 503 ? 'unhealthy' : `unknown (${report.message})`;
}

/** A peer's base URL (its actor is `<base>/services/node`), where its own explorer is. */
function peerBase(actor: string): string {
  return actor.replace(/\/services\/[^/]+$/, '');
}

/**
 * Whether a peer answers, read from its host: its `/.well-known/did.json` is the one public read a node
 * answers to any origin (CORS `*`; its health report has no CORS headers, so its full health is on its own
 * explorer). `up` when it answers, else the status or the network failure.
 */
async function peerReachable(actor: string): Promise<string> {
  try {
    const response = await fetch(`${peerBase(actor)}/.well-known/did.json`);
    return response.ok ? 'up' : `down (${response.status})`;
  } catch {
    return 'does not answer';
  }
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
      const peer = byActor.get(id) ?? { actor: id, relations: [], reachable: 'unknown' };
      peer.relations.push(relation);
      byActor.set(id, peer);
    }
  }
  const peers = [...byActor.values()].sort((a, b) => a.actor.localeCompare(b.actor));
  await Promise.all(peers.map(async (peer) => (peer.reachable = await peerReachable(peer.actor))));
  return { state: 'found', self: { actor: selfId, health: await ownHealth(base) }, peers };
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
                  h('span', { class: healthClass(peer.reachable) }, peer.reachable),
                  ' · ',
                  h('a', { href: `${peerBase(peer.actor)}/explorer/?view=federation` }, 'its health on its explorer'),
                ]),
              ]),
            ),
          ]),
        ])
      : null,
  ]);
}

function healthClass(health: string): string {
  return health === 'OK' || health === 'up' ? 'ok' : 'pending';
}
