import { describe, expect, it } from 'vitest';
import { createMetrics, observeDuration } from './index.js';
import { parsePrometheusText } from './prometheus-text.test-helpers.js';

describe('metrics', () => {
  it('exposes prefixed metrics and process metrics as Prometheus text', async () => {
    const metrics = createMetrics({ prefix: 'node_' });
    const inbox = metrics.histogram({
      name: 'activitypub_inbox_handler_seconds',
      help: 'Seconds to handle an inbox activity',
      labelNames: ['type'],
    });
    inbox.observe({ type: 'Create' }, 0.02);
    inbox.observe({ type: 'Create' }, 3);
    metrics
      .counter({ name: 'activitypub_outbox_count', help: 'Activities posted', labelNames: ['type'] })
      .inc({ type: 'Follow' });
    metrics.gauge({ name: 'queue_depth', help: 'Waiting items' }).set(7);

    const { contentType, body } = await metrics.exposition();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = parsePrometheusText(body);
    expect(text.types.get('node_activitypub_inbox_handler_seconds')).toBe('histogram');
    expect(text.value('node_activitypub_inbox_handler_seconds_bucket', { type: 'Create', le: '0.005' })).toBe(0);
    expect(text.value('node_activitypub_inbox_handler_seconds_bucket', { type: 'Create', le: '0.025' })).toBe(1);
    expect(text.value('node_activitypub_inbox_handler_seconds_bucket', { type: 'Create', le: '10' })).toBe(2);
    expect(text.value('node_activitypub_inbox_handler_seconds_bucket', { type: 'Create', le: '+Inf' })).toBe(2);
    expect(text.value('node_activitypub_inbox_handler_seconds_sum', { type: 'Create' })).toBeCloseTo(3.02);
    expect(text.value('node_activitypub_inbox_handler_seconds_count', { type: 'Create' })).toBe(2);
    expect(text.value('node_activitypub_outbox_count', { type: 'Follow' })).toBe(1);
    expect(text.value('node_queue_depth')).toBe(7);
    expect(text.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(text.types.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('keeps registries apart and returns the same metric for the same name', async () => {
    const a = createMetrics({ prefix: 'a_', processMetrics: false });
    const b = createMetrics({ prefix: 'a_', processMetrics: false });
    const first = a.counter({ name: 'hits', help: 'h' });
    expect(a.counter({ name: 'hits', help: 'h' })).toBe(first);
    first.inc(2);
    expect(b.counter({ name: 'hits', help: 'h' })).not.toBe(first);
    expect(parsePrometheusText((await b.exposition()).body).value('a_hits')).toBe(0);
    expect(() => a.gauge({ name: 'hits', help: 'h' })).toThrow(/already exists with another type/);
  });

  it('adds default labels to every series', async () => {
    const metrics = createMetrics({ prefix: 'vct_', processMetrics: false, defaultLabels: { instance: 'log-1' } });
    metrics.counter({ name: 'entries_total', help: 'entries' }).inc();
    expect(
      parsePrometheusText((await metrics.exposition()).body).value('vct_entries_total', { instance: 'log-1' }),
    ).toBe(1);
  });

  it('times work whether it succeeds or fails', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const seconds = metrics.histogram({ name: 'work_seconds', help: 'w', labelNames: ['outcome'] });
    await expect(observeDuration(seconds, { outcome: 'ok' }, async () => 'done')).resolves.toBe('done');
    await expect(
      observeDuration(seconds, { outcome: 'failed' }, async () => Promise.reject(new Error('no'))),
    ).rejects.toThrow('no');
    const text = parsePrometheusText((await metrics.exposition()).body);
    expect(text.value('work_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(text.value('work_seconds_count', { outcome: 'failed' })).toBe(1);
  });

  it('the test reader rejects text that is not the exposition format', () => {
    expect(() => parsePrometheusText('# TYPE x counter\nx{a="1" 2\n')).toThrow(/not a sample|bad labels/);
    expect(() => parsePrometheusText('y 1\n')).toThrow(/undeclared family/);
    expect(() => parsePrometheusText('# TYPE x counter\nx one\n')).toThrow(/bad value/);
    expect(() => parsePrometheusText('<html>\n')).toThrow(/not a sample/);
  });
});
