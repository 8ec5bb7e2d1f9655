import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { anchorLink, didLink } from './layout.js';
import { summarizeAnchor, type AnchorSummary, type Witness } from './linkset.js';

type Loaded = { state: 'loading' } | { state: 'found'; summary: AnchorSummary } | { state: 'failed'; message: string };

/** Reads an anchor's witnessed linkset from the node's CAS (`/cas/<hash>`) and summarizes it. */
export async function loadAnchor(base: string, anchor: string): Promise<Loaded> {
  const fetched = await getJson<unknown>(`${base}/cas/${encodeURIComponent(anchor)}`);
  if (!fetched.ok) {
    const message = fetched.status === 404 ? `this node holds no anchor ${anchor}` : fetched.message;
    return { state: 'failed', message };
  }
  try {
    return { state: 'found', summary: await summarizeAnchor(fetched.value) };
  } catch (error) {
    return { state: 'failed', message: `${anchor} is not an anchor: ${(error as Error).message}` };
  }
}

export function WitnessList(props: { witnesses: Witness[] }): ComponentChild {
  if (props.witnesses.length === 0) return h('p', null, 'No witness proofs.');
  return h(
    'ul',
    { class: 'witnesses', 'aria-label': 'Witnesses' },
    props.witnesses.map((witness) =>
      h('li', { key: witness.verificationMethod }, [
        h('span', { class: 'witness' }, witness.name),
        ' ',
        h('code', null, witness.verificationMethod),
        witness.log ? [' logged in ', h('code', null, witness.log)] : null,
      ]),
    ),
  );
}

/** An anchor's author, DIDs, credential and witnesses; `heading` names the section. */
export function AnchorDetails(props: { anchor: string; summary: AnchorSummary; heading: string }): ComponentChild {
  const { summary } = props;
  return h('section', { 'aria-label': props.heading, class: 'anchor' }, [
    h('h3', null, props.heading),
    h('dl', null, [
      h('dt', null, 'Anchor'),
      h('dd', null, anchorLink(props.anchor)),
      h('dt', null, 'Made by'),
      h('dd', null, h('code', null, summary.author ?? 'unknown')),
      h('dt', null, 'Credential'),
      h('dd', null, h('code', null, summary.credentialId ?? 'none')),
      h('dt', null, 'Issued'),
      h('dd', null, summary.issuanceDate ?? 'unknown'),
    ]),
    h('h4', null, `DIDs (${summary.dids.length})`),
    h(
      'ul',
      { 'aria-label': 'DIDs in the anchor' },
      summary.dids.map((did) => h('li', { key: did }, didLink(did))),
    ),
    h('h4', null, `Witnesses (${summary.witnesses.length})`),
    h(WitnessList, { witnesses: summary.witnesses }),
  ]);
}

/** The anchor page (`?anchor=<hash>`). */
export function AnchorPage(props: { base: string; anchor: string }): ComponentChild {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  useEffect(() => {
    void loadAnchor(props.base, props.anchor).then(setLoaded);
  }, [props.anchor]);
  return h('div', null, [
    h('h2', null, 'Anchor'),
    h(
      'div',
      { role: 'status', id: 'anchor-status' },
      loaded.state === 'loading'
        ? `Looking up anchor ${props.anchor}…`
        : loaded.state === 'failed'
          ? `No anchor found: ${loaded.message}`
          : `Anchor ${props.anchor}`,
    ),
    loaded.state === 'found'
      ? h(AnchorDetails, { anchor: props.anchor, summary: loaded.summary, heading: 'Anchor' })
      : null,
  ]);
}
