import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { getMetricsFromStream, type PromHistogramData, type PromMetrics } from 'prom2javascript';
import { makeTempDir, stopAllProcesses, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, resolveDid, TestDid, waitPublished } from '../src/testing/test-node.js';
import { startNodeProcess, type NodeProcess } from './node-process.js';

const DASHBOARD = new URL('../../../deploy/grafana/node-dashboard.json', import.meta.url);

interface GrafanaDashboard {
  panels: Array<{ targets?: Array<{ expr: string }> }>;
}

/** PromQL's functions, aggregations and keywords: what is left of an expression's identifiers are its metric names. */
const PROMQL_WORDS = new Set(['histogram_quantile', 'sum', 'rate', 'by', 'le', 'instance']);

/** The metric names a PromQL expression reads (label matchers and template variables taken out first). */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\$\w+/g, '');
  const groupings = [...bare.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((match) => (match[1] ?? '').split(/\s*,\s*/));
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .map((match) => match[0])
    .filter((word) => !PROMQL_WORDS.has(word) && !groupings.includes(word) && !/^\d/.test(word));
}

/**
 * A Prometheus scrape of the built node, read by two published exposition-format parsers rather than by
 * our own: parse-prometheus-text-format (a port of the Prometheus client_python parser) must read every
 * line and gives each family's TYPE; prom2javascript gives the series of labelled histograms (which the
 * first merges into one) and checks each histogram's +Inf bucket against its _count.
 */
describe('GET /metrics scraped and parsed as Prometheus does', () => {
  let dir: TempDir;
  let node: NodeProcess;
  let text: string;
  let metrics: PromMetrics;

  beforeAll(async () => {
    dir = await makeTempDir('node-metrics-');
    node = await startNodeProcess(dir, { args: ['--batch-writer-timeout', '200ms'] });
    // Drive the pipeline once: accept, batch, anchor, observe, resolve (found and not found).
    const did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    await waitPublished(node.url, did.did);
    expect((await resolveDid(node.url, new TestDid(node.url).did)).status).toBe(404);

    const response = await fetch(`${node.url}/metrics`, { headers: { accept: 'text/plain' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    text = await response.text();
    metrics = await getMetricsFromStream(Readable.from([text]));
  });

  afterAll(async () => {
    await stopAllProcesses();
    await dir?.remove();
  });

  const histogramSeries = (name: string, labels: Record<string, string> = {}): PromHistogramData => {
    const metric = metrics[name];
    if (metric?.type !== 'histogram') throw new Error(`${name} is not a histogram in the scrape`);
    const series = (metric.data as PromHistogramData[]).find((s) =>
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
    if (!series) throw new Error(`${name} has no series ${JSON.stringify(labels)}`);
    return series;
  };
  const counterValue = (name: string, labels: Record<string, string>): number | undefined =>
    (metrics[name]?.data as Array<{ labels: Record<string, string>; value: number }> | undefined)?.find((s) =>
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    )?.value;

  it('every line parses, with the process metrics and the node_ families at their types', () => {
    const types = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family.type]));
    expect(Object.fromEntries(types)).toMatchObject({
      process_cpu_user_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      nodejs_eventloop_lag_seconds: 'GAUGE',
      node_operations_accepted_total: 'COUNTER',
      node_batch_size: 'HISTOGRAM',
      node_batch_cut_seconds: 'HISTOGRAM',
      node_anchor_write_seconds: 'HISTOGRAM',
      node_anchor_witness_seconds: 'HISTOGRAM',
      node_observer_process_anchor_seconds: 'HISTOGRAM',
      node_resolution_seconds: 'HISTOGRAM',
      node_activitypub_inbox_handler_seconds: 'HISTOGRAM',
      node_http_request_duration_seconds: 'HISTOGRAM',
    });
  });

  it('counts what the pipeline did', () => {
    expect(counterValue('node_operations_accepted_total', { type: 'create' })).toBe(1);
    expect(counterValue('node_operations_accepted_total', { type: 'update' })).toBe(0);
    expect(histogramSeries('node_batch_size').count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_batch_size').sum).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_batch_cut_seconds').count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_anchor_write_seconds').count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_anchor_witness_seconds').count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_observer_process_anchor_seconds', { origin: 'local' }).count).toBeGreaterThanOrEqual(
      1,
    );
    expect(histogramSeries('node_observer_process_anchor_seconds', { origin: 'remote' }).count).toBe(0);
    expect(histogramSeries('node_resolution_seconds', { result: 'found' }).count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_resolution_seconds', { result: 'not_found' }).count).toBe(1);
  });

  it('node_activitypub_inbox_handler_seconds has a series per activity type with buckets 0.005 … 10 and +Inf', () => {
    const inbox = metrics['node_activitypub_inbox_handler_seconds'];
    expect(inbox?.type).toBe('histogram');
    const series = inbox?.data as PromHistogramData[];
    expect(series.map((s) => s.labels.type)).toEqual(
      expect.arrayContaining([
        'Accept',
        'Announce',
        'Create',
        'Follow',
        'InviteWitness',
        'Like',
        'Offer',
        'Reject',
        'Undo',
      ]),
    );
    for (const { buckets } of series) {
      const bounds = Object.keys(buckets)
        .map((le) => (le === '+Inf' ? Infinity : Number(le)))
        .sort((a, b) => a - b);
      expect(bounds).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, Infinity]);
    }
  });

  it('the Grafana dashboard (deploy/grafana) is valid JSON and every metric it names is exported here', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as GrafanaDashboard;
    const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    expect(exprs.length).toBeGreaterThan(30);
    const named = new Set(exprs.flatMap((expr) => metricNamesIn(expr)));
    const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family.type]));
    const exported = (name: string): boolean => {
      if (families.has(name)) return true;
      const histogram = /^(.*)_(bucket|count|sum)$/.exec(name)?.[1];
      return histogram !== undefined && families.get(histogram) === 'HISTOGRAM';
    };
    expect([...named].filter((name) => !exported(name))).toEqual([]);
    // Orb's families the dashboard shows (orb.md §8.1), under node_.
    expect([...named]).toEqual(
      expect.arrayContaining([
        'node_db_put_seconds_bucket',
        'node_cas_resolve_seconds_bucket',
        'node_anchor_step_seconds_bucket',
        'node_activitypub_outbox_resolve_inboxes_seconds_bucket',
        'node_vct_witness_add_vc_seconds_bucket',
        'node_http_client_request_seconds_bucket',
      ]),
    );
  });

  it('the anchor steps, the database and the outbound client were timed by the create', () => {
    expect(histogramSeries('node_anchor_step_seconds', { status: 'cut' }).count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_anchor_step_seconds', { status: 'witnessed' }).count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_db_put_seconds', { type: 'lmdb' }).count).toBeGreaterThanOrEqual(1);
    expect(histogramSeries('node_db_batch_seconds', { type: 'lmdb' }).count).toBeGreaterThanOrEqual(1);
  });

  it('the parsers are strict enough to catch a broken exposition', async () => {
    expect(() => parsePrometheusTextFormat('# TYPE x counter\nx{a="1" 2\n')).toThrow(/invalid line/i);
    expect(() => parsePrometheusTextFormat('# TYPE x counter gauge\n')).toThrow(/invalid line/i);
    await expect(
      getMetricsFromStream(
        Readable.from(['# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 2\nh_count 3\n']),
      ),
    ).rejects.toThrow(/Malformed histogram/);
    await expect(getMetricsFromStream(Readable.from(['x{a="1" 2\n']))).rejects.toThrow(/Unable to parse metric/);
  });
});
