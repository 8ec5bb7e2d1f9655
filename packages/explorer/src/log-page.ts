import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { TimeChart } from './time-chart.js';

/** How often the page reads the log's signed tree head, and how many readings it keeps. */
export const LOG_POLL_MS = 3_000;
const KEPT = 100;

interface Sth {
  tree_size: number;
  timestamp: number;
  sha256_root_hash: string;
}

/** One log as the node's log monitor last saw it (`GET /log-monitor`). */
interface Monitored {
  Log?: string;
  STH?: { tree_size?: number; timestamp?: number };
  VerifiedAt?: string;
  CheckedAt?: string;
  LastError?: string;
  Failure?: unknown;
}

type State = {
  logUrl?: string;
  error?: string;
  readings: Array<{ at: number; sth: Sth }>;
  monitor?: Monitored[] | string;
};

/** The log the node uses as its witness (`GET /log`: the log alias URL as text), or why there is none. */
async function logOf(base: string): Promise<string> {
  const response = await fetch(`${base}/log`);
  if (response.status === 404) throw new Error('this node uses no transparency log');
  if (!response.ok) throw new Error(`${base}/log answered ${response.status}`);
  return (await response.text()).trim();
}

async function monitorOf(base: string): Promise<Monitored[] | string> {
  const active = await getJson<{ active?: Monitored[] }>(`${base}/log-monitor`);
  if (active.ok) return active.value.active ?? [];
  return active.status === 404 ? [] : active.message;
}

/**
 * The log page (`?view=log`): the node's log, its tree size over time from the log's signed tree heads
 * (`get-sth`, which the log answers to any origin), the distinct heads seen, and how the node's log monitor
 * last found each log it watches (consistency checked, or the error).
 */
export function LogPage(props: { base: string }): ComponentChild {
  const [state, setState] = useState<State>({ readings: [] });
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    void (async () => {
      let logUrl: string;
      try {
        logUrl = await logOf(props.base);
      } catch (error) {
        setState((s) => ({ ...s, error: (error as Error).message }));
        return;
      }
      const poll = async (): Promise<void> => {
        const [sth, monitor] = await Promise.all([getJson<Sth>(`${logUrl}/v1/get-sth`), monitorOf(props.base)]);
        if (stopped) return;
        setState((s) =>
          sth.ok
            ? { logUrl, monitor, readings: [...s.readings, { at: Date.now(), sth: sth.value }].slice(-KEPT) }
            : { ...s, logUrl, monitor, error: `the log's get-sth: ${sth.message}` },
        );
      };
      await poll();
      if (!stopped) timer = setInterval(() => void poll(), LOG_POLL_MS);
    })();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  const { readings } = state;
  const last = readings.at(-1)?.sth;
  const heads = [...new Map(readings.map((r) => [`${r.sth.tree_size}:${r.sth.sha256_root_hash}`, r.sth])).values()]
    .reverse()
    .slice(0, 10);
  const status =
    state.error !== undefined
      ? `Could not read the log: ${state.error}`
      : last === undefined
        ? 'Reading the log…'
        : `Tree size ${last.tree_size} (${readings.length} reading${readings.length === 1 ? '' : 's'}, one every ${LOG_POLL_MS / 1000} s).`;
  return h('div', null, [
    h('h2', null, 'Log'),
    h('div', { role: 'status', id: 'log-status' }, status),
    state.logUrl ? h('p', null, ['Log: ', h('code', { id: 'log-url' }, state.logUrl)]) : null,
    last
      ? h(TimeChart, {
          id: 'chart-tree-size',
          title: 'Tree size',
          times: readings.map((r) => (r.at - readings[0]!.at) / 1000),
          values: readings.map((r) => r.sth.tree_size),
          latest: String(last.tree_size),
          windowSeconds: (KEPT * LOG_POLL_MS) / 1000,
        })
      : null,
    heads.length > 0
      ? h('table', { class: 'sths' }, [
          h('caption', null, 'Signed tree heads seen, newest first'),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Tree size', 'Timestamp', 'Root hash'].map((name) => h('th', { scope: 'col', key: name }, name)),
            ),
          ),
          h(
            'tbody',
            null,
            heads.map((sth) =>
              h('tr', { key: `${sth.tree_size}:${sth.sha256_root_hash}` }, [
                h('td', null, String(sth.tree_size)),
                h('td', null, new Date(sth.timestamp).toISOString()),
                h('td', null, h('code', null, sth.sha256_root_hash)),
              ]),
            ),
          ),
        ])
      : null,
    h('section', { 'aria-label': 'Log monitor' }, [
      h('h3', null, "The node's log monitor"),
      typeof state.monitor === 'string'
        ? h('p', null, `Could not read it: ${state.monitor}`)
        : state.monitor === undefined
          ? null
          : state.monitor.length === 0
            ? h('p', null, 'It watches no log.')
            : h(
                'ul',
                { id: 'log-monitor' },
                state.monitor.map((log) =>
                  h('li', { key: log.Log }, [
                    h('code', null, log.Log ?? 'unknown log'),
                    `: tree size ${log.STH?.tree_size ?? '?'}`,
                    log.VerifiedAt ? `, consistent as of ${log.VerifiedAt}` : ', not verified yet',
                    log.CheckedAt ? ` (checked ${log.CheckedAt})` : '',
                    log.LastError ? `; last error: ${log.LastError}` : '',
                    log.Failure ? '; found misbehaving' : '',
                  ]),
                ),
              ),
    ]),
  ]);
}
