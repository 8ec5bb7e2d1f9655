import { h, type ComponentChild } from 'preact';
import { useState } from 'preact/hooks';
import { searchTarget, viewHref } from './node-address.js';

export type View = 'did' | 'anchors' | 'anchor' | 'federation' | 'log' | 'node';

const VIEWS: ReadonlyArray<[View, string, Record<string, string>]> = [
  ['did', 'DIDs', {}],
  ['anchors', 'Anchors', { view: 'anchors' }],
  ['federation', 'Federation', { view: 'federation' }],
  ['log', 'Log', { view: 'log' }],
  ['node', 'Node', { view: 'node' }],
];

/** The search box of every page: a DID in any form opens its DID page, an anchor hash or hashlink its anchor. */
function SearchBox(props: { initial: string }): ComponentChild {
  const [query, setQuery] = useState(props.initial);
  return h(
    'form',
    {
      role: 'search',
      onSubmit: (event: Event) => {
        event.preventDefault();
        const target = searchTarget(query);
        if (target === undefined) return;
        window.location.assign(viewHref(window.location.href, target));
      },
    },
    [
      h('label', { for: 'search' }, 'Search by DID (uAAA, canonical, hashlink, https hint, did:web) or anchor'),
      h('input', {
        id: 'search',
        name: 'q',
        type: 'search',
        value: query,
        autoComplete: 'off',
        spellcheck: false,
        onInput: (event: Event) => setQuery((event.target as HTMLInputElement).value),
      }),
      h('button', { type: 'submit' }, 'Search'),
    ],
  );
}

/** The frame of every view: the node read, the views, the search box, then the view itself. */
export function Layout(props: { base: string; view: View; query: string; children: ComponentChild }): ComponentChild {
  const here = window.location.href;
  return h('div', null, [
    h('nav', { 'aria-label': 'Explorer' }, [
      h(
        'ul',
        null,
        VIEWS.map(([view, label, params]) =>
          h(
            'li',
            { key: view },
            h('a', { href: viewHref(here, params), 'aria-current': view === props.view ? 'page' : undefined }, label),
          ),
        ),
      ),
      h('p', { class: 'node' }, ['Node: ', h('code', null, props.base)]),
    ]),
    h(SearchBox, { initial: props.query }),
    h('main', { id: 'view' }, props.children),
  ]);
}

/** A link to a DID's page. */
export function didLink(did: string): ComponentChild {
  return h('a', { href: viewHref(window.location.href, { did }), class: 'mono' }, did);
}

/** A link to an anchor's page. */
export function anchorLink(anchor: string, text?: string): ComponentChild {
  return h('a', { href: viewHref(window.location.href, { anchor }), class: 'mono' }, text ?? anchor);
}
