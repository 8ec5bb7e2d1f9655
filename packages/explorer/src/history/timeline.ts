import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { VerifyPanel } from '../verify/verify-panel.js';
import { historyUrl, parseHistory, timelineOf, versionUrl, type TimelineRow } from './history.js';

type Loaded = { state: 'loading' } | { state: 'ready'; rows: TimelineRow[] } | { state: 'failed'; message: string };

async function messageOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the status says it
  }
  return `${response.status} ${response.statusText}`;
}

async function load(base: string, did: string): Promise<Loaded> {
  try {
    const response = await fetch(historyUrl(base, did), { headers: { accept: 'application/json' } });
    if (!response.ok) return { state: 'failed', message: await messageOf(response) };
    return { state: 'ready', rows: timelineOf(parseHistory(await response.json())) };
  } catch (error) {
    return { state: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

/** One version of the DID, opened on demand (resolution with its versionId). */
function Version(props: { base: string; did: string; versionId: string }): ComponentChild {
  const [open, setOpen] = useState<{ text: string } | undefined>(undefined);
  const toggle = (): void => {
    if (open !== undefined) return setOpen(undefined);
    void fetch(versionUrl(props.base, props.did, props.versionId), { headers: { accept: 'application/json' } })
      .then(async (response) =>
        response.ok
          ? JSON.stringify(await response.json(), null, 2)
          : `${response.status}: ${await messageOf(response)}`,
      )
      .catch((error: unknown) => `the node does not answer (${String(error)})`)
      .then((text) => setOpen({ text }));
  };
  return h('div', null, [
    h('button', { type: 'button', class: 'open-version', 'aria-expanded': open !== undefined, onClick: toggle }, [
      open === undefined ? 'Open this version' : 'Close this version',
    ]),
    open !== undefined
      ? h('pre', { class: 'json', tabIndex: 0, 'aria-label': `version ${props.versionId}` }, open.text)
      : null,
  ]);
}

function row(base: string, did: string, entry: TimelineRow): ComponentChild {
  return h('li', { class: `timeline-entry ${entry.status.replace(' ', '-')}`, 'data-type': entry.type }, [
    h('p', null, [
      h('strong', null, `${entry.number}. ${entry.type}`),
      ` — ${entry.status}${entry.time ? `, ${entry.time}` : ''}`,
      entry.transactionNumber !== undefined ? `, transaction ${entry.transactionNumber}` : '',
    ]),
    entry.anchor ? h('p', { class: 'hash' }, `anchor ${entry.anchor}`) : null,
    entry.newCanonicalId ? h('p', { class: 'hash' }, `canonical id now ${entry.newCanonicalId}`) : null,
    entry.deactivates ? h('p', { class: 'bad' }, 'the DID is deactivated from here on') : null,
    entry.versionId ? h(Version, { base, did, versionId: entry.versionId }) : null,
  ]);
}

/** The DID's history as a timeline (every operation, its anchor, versions openable), and its verification. */
export function DidHistorySection(props: { base: string; did: string }): ComponentChild {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  useEffect(() => {
    setLoaded({ state: 'loading' });
    void load(props.base, props.did).then(setLoaded);
  }, [props.base, props.did]);
  if (loaded.state === 'loading') return h('p', { role: 'status' }, 'Loading the history…');
  if (loaded.state === 'failed') return h('p', { role: 'status', class: 'bad' }, `No history: ${loaded.message}`);
  const anchors = [...new Set(loaded.rows.map((entry) => entry.anchor).filter((a): a is string => a !== undefined))];
  // The batch witnesses of an anchor are the services of its operations' origins: the page knows the DID's own.
  const originsOf: Record<string, string[]> = {};
  for (const entry of loaded.rows)
    if (entry.anchor !== undefined && entry.anchorOrigin !== undefined)
      originsOf[entry.anchor] = [...new Set([...(originsOf[entry.anchor] ?? []), entry.anchorOrigin])];
  return h('div', null, [
    h('section', { 'aria-labelledby': 'history-title', id: 'history' }, [
      h('h3', { id: 'history-title' }, `History (${loaded.rows.length} operations)`),
      h(
        'ol',
        { class: 'timeline' },
        loaded.rows.map((entry) => row(props.base, props.did, entry)),
      ),
    ]),
    h(VerifyPanel, { base: props.base, anchors, originsOf }),
  ]);
}
