import { h, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { between, parseExposition, reading, type Reading } from './metrics.js';
import { TimeChart } from './time-chart.js';

/** How often the page reads the node's metrics, and how many readings its charts keep. */
export const POLL_MS = 3_000;
export const KEPT = 100;

type State = { readings: Reading[]; error?: string };

async function readMetrics(base: string): Promise<Reading | string> {
  try {
    const response = await fetch(`${base}/metrics`);
    if (!response.ok) return `${base}/metrics answered ${response.status} ${response.statusText}`;
    return reading(Date.now(), parseExposition(await response.text()));
  } catch (error) {
    return `${base}/metrics does not answer (${String(error)})`;
  }
}

/** The node page (`?view=node`): operations per second, queue depth, batch latency, delivery failures. */
export function NodePage(props: { base: string }): ComponentChild {
  const [state, setState] = useState<State>({ readings: [] });
  useEffect(() => {
    let stopped = false;
    const poll = async (): Promise<void> => {
      const next = await readMetrics(props.base);
      if (stopped) return;
      setState((previous) =>
        typeof next === 'string'
          ? { ...previous, error: next }
          : { readings: [...previous.readings, next].slice(-KEPT) },
      );
    };
    void poll();
    const timer = setInterval(() => void poll(), POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);

  const { readings } = state;
  const times = readings.slice(1).map((r) => (r.at - readings[0]!.at) / 1000);
  const steps = readings.slice(1).map((r, i) => between(readings[i]!, r));
  const last = readings.at(-1);
  const lastStep = steps.at(-1);
  const status =
    state.error !== undefined
      ? `Could not read the node's metrics: ${state.error}`
      : readings.length === 0
        ? 'Reading the metrics…'
        : `${readings.length} reading${readings.length === 1 ? '' : 's'} of /metrics, one every ${POLL_MS / 1000} s (rates from the second on).`;
  return h('div', null, [
    h('h2', null, 'Node'),
    h('div', { role: 'status', id: 'node-status' }, status),
    last
      ? h('dl', { id: 'node-totals' }, [
          h('dt', null, 'Operations accepted'),
          h('dd', { id: 'node-accepted' }, String(last.accepted)),
          h('dt', null, 'Queue depth'),
          h('dd', null, String(last.queueDepth)),
          h('dt', null, 'Pending operations'),
          h('dd', null, String(last.pending)),
          h('dt', null, 'Batches cut'),
          h('dd', null, String(last.batchCount)),
          h('dt', null, 'Delivery failures'),
          h('dd', null, String(last.deliveryFailures)),
        ])
      : null,
    last
      ? h('div', { class: 'charts' }, [
          h(TimeChart, {
            id: 'chart-ops',
            title: 'Operations per second',
            times,
            windowSeconds: (KEPT * POLL_MS) / 1000,
            values: steps.map((s) => s.operationsPerSecond),
            latest: lastStep ? lastStep.operationsPerSecond.toFixed(2) : 'needs two readings',
          }),
          h(TimeChart, {
            id: 'chart-queue',
            title: 'Queue depth',
            times,
            windowSeconds: (KEPT * POLL_MS) / 1000,
            values: readings.slice(1).map((r) => r.queueDepth),
            latest: String(last.queueDepth),
          }),
          h(TimeChart, {
            id: 'chart-batch',
            title: 'Batch latency (s, mean of the batches cut)',
            times,
            windowSeconds: (KEPT * POLL_MS) / 1000,
            values: steps.map((s) => s.batchLatencySeconds ?? null),
            latest: lastStep?.batchLatencySeconds?.toFixed(3) ?? 'no batch cut since the last reading',
          }),
          h(TimeChart, {
            id: 'chart-deliveries',
            title: 'Delivery failures (total)',
            times,
            windowSeconds: (KEPT * POLL_MS) / 1000,
            values: readings.slice(1).map((r) => r.deliveryFailures),
            latest: String(last.deliveryFailures),
          }),
        ])
      : null,
  ]);
}
