/**
 * One trace across real processes: node B takes a create, anchors it in a batch, offers it to node A (its
 * witness, which also follows it), both log at the vct-log, and A's observer processes B's Create. Every
 * service exports its spans over OTLP/HTTP (JSON) to a collector this test runs on loopback; the nodes pass
 * their work through RabbitMQ (a virtual host of the test's own), so the trace context crosses HTTP (signed
 * requests included) and AMQP message headers.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { serviceBin } from '@anchor/dev-env';
import { AMQP_URL, amqpUnavailable } from '@anchor/testing/amqp-broker';
import { freePort, makeTempDir, startProcess, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { TestDid, metadataOf, postOperation, resolveDid } from '@anchor/node/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, startVctLog, type RunningNode } from './federation.test-helpers.js';

interface CollectedSpan {
  service: string;
  instance: string | undefined;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  links: Array<{ traceId: string; spanId: string }>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        links?: Array<{ traceId: string; spanId: string }>;
      }>;
    }>;
  }>;
}

/** A minimal OTLP/HTTP JSON trace collector: keeps every span it is sent, with its resource's service. */
async function startCollector(): Promise<{ url: string; spans: CollectedSpan[]; server: Server }> {
  const spans: CollectedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.includes('json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const attribute = (key: string) =>
          resourceSpans.resource?.attributes?.find((entry) => entry.key === key)?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              service: attribute('service.name') ?? '?',
              instance: attribute('service.instance.id'),
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              links: span.links ?? [],
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, spans, server };
}

const vhost = `anchor-tracing-test-${process.pid}`;
const rabbitmqctl = (...args: string[]) => promisify(execFile)('rabbitmqctl', args, { timeout: 60_000 });
const brokerUnavailable = await amqpUnavailable();

describe.skipIf(brokerUnavailable !== undefined && process.env['CI'] !== 'true')(
  'one trace from a create to a witness, the log and a follower (OpenTelemetry, OTLP)',
  () => {
    const dirs: TempDir[] = [];
    let collector: Awaited<ReturnType<typeof startCollector>>;
    let nodeA: RunningNode;
    let nodeB: RunningNode;

    beforeAll(async () => {
      if (brokerUnavailable !== undefined) throw new Error(`CI=true but ${brokerUnavailable}`);
      collector = await startCollector();
      await rabbitmqctl('delete_vhost', vhost).catch(() => undefined);
      await rabbitmqctl('add_vhost', vhost);
      await rabbitmqctl('set_permissions', '-p', vhost, new URL(AMQP_URL).username || 'guest', '.*', '.*', '.*');
      const amqpUrl = new URL(AMQP_URL);
      amqpUrl.pathname = `/${vhost}`;
      const tracing = ['--tracing-otlp-url', collector.url];
      const nodeFlags = [
        ...tracing,
        '--mq-url',
        amqpUrl.toString(),
        '--follow-auth-policy',
        'accept-list',
        '--invite-witness-auth-policy',
        'accept-list',
        '--batch-writer-timeout',
        '200ms',
      ];
      const [vctDir, dirA, dirB] = await Promise.all(['trace-vct-', 'trace-a-', 'trace-b-'].map((p) => makeTempDir(p)));
      dirs.push(vctDir!, dirA!, dirB!);
      const { logUrl } = await startVctLog(vctDir!, tracing);
      [nodeA, nodeB] = await Promise.all([startNode('nodeA', dirA!, nodeFlags), startNode('nodeB', dirB!, nodeFlags)]);
      for (const node of [nodeA, nodeB]) expect(await node.admin.setLog(logUrl)).toBe(logUrl);
      await nodeB.admin.allow('follow', [nodeA.service]);
      await nodeA.admin.allow('invite-witness', [nodeB.service]);
      expect(await nodeB.admin.setWitnessPolicy('MinPercent(100,batch)')).toBe('MinPercent(100,batch)');
      await nodeA.admin.follow(nodeB.service);
      await nodeB.admin.inviteWitness(nodeA.service);
      await Promise.all([
        nodeB.admin.waitUntilIn('followers', nodeA.service),
        nodeA.admin.waitUntilIn('witnessing', nodeB.service),
        nodeB.admin.waitUntilIn('witnesses', nodeA.service),
      ]);
    });

    afterAll(async () => {
      for (const node of [nodeA, nodeB]) node?.admin.close();
      await stopAllProcesses();
      await new Promise((resolve) => collector?.server.close(resolve));
      await rabbitmqctl('delete_vhost', vhost).catch(() => undefined);
      await Promise.all(dirs.map((dir) => dir.remove()));
    });

    it('links the create, its batch, the Offer handled by the witness, add-vc at the log and the observer on the follower', async () => {
      const did = new TestDid(nodeB.url);
      expect((await postOperation(nodeB.url, did.created.request)).status).toBe(200);
      await waitFor(
        async () => {
          const result = await resolveDid(nodeA.url, did.did);
          return result.status === 200 && (metadataOf(result).method as { published?: boolean }).published === true
            ? true
            : undefined;
        },
        { timeoutMs: 45_000, intervalMs: 250, description: `${did.did} published on the follower` },
      );

      const onB = (span: CollectedSpan) => span.service === 'anchor-node' && span.instance === nodeB.service;
      const onA = (span: CollectedSpan) => span.service === 'anchor-node' && span.instance === nodeA.service;
      const create = await waitFor(
        async () => collector.spans.find((span) => onB(span) && span.name === 'POST /sidetree/v1/operations'),
        { timeoutMs: 20_000, intervalMs: 250, description: "the create request's span" },
      );
      // Spans are exported in batches every few seconds: wait until the whole chain has arrived.
      const wanted: Array<[string, (span: CollectedSpan) => boolean]> = [
        ['the batch on B', (span) => onB(span) && span.name === 'anchor batch'],
        ["the Offer's delivery reaching A", (span) => onA(span) && span.name === 'POST /services/node/inbox'],
        ['the Offer handled on A', (span) => onA(span) && span.name === 'activity Offer'],
        ['add-vc at the log', (span) => span.service === 'vct-server' && span.name === 'POST /main/v1/add-vc'],
        ["B's Create handled on A", (span) => onA(span) && span.name === 'activity Create'],
        ["A's observer taking the anchor", (span) => onA(span) && span.name === 'process node.anchor'],
      ];
      const trace = await waitFor(
        async () => {
          const spans = collector.spans.filter((span) => span.traceId === create.traceId);
          const missing = wanted.filter(([, match]) => !spans.some(match)).map(([what]) => what);
          if (missing.length > 0) throw new Error(`trace ${create.traceId} lacks ${missing.join(', ')}`);
          return spans;
        },
        { timeoutMs: 30_000, intervalMs: 500, description: 'every span of the chain in one trace' },
      );

      // One tree: every span of the trace but its root has its parent in the trace.
      const ids = new Set(trace.map((span) => span.spanId));
      expect(create.parentSpanId).toBeUndefined();
      expect(trace.filter((span) => span.parentSpanId !== undefined && !ids.has(span.parentSpanId))).toEqual([]);
      const services = new Set(trace.map((span) => `${span.service} ${span.instance ?? ''}`.trim()));
      expect(services).toEqual(new Set([`anchor-node ${nodeB.service}`, `anchor-node ${nodeA.service}`, 'vct-server']));
      // Across AMQP: A's observer runs under a consumer span whose parent is the publish on A.
      const observer = trace.find((span) => onA(span) && span.name === 'process node.anchor')!;
      expect(trace.find((span) => span.spanId === observer.parentSpanId)?.name).toBe('publish node.anchor');
      console.log(`trace ${create.traceId}: ${trace.length} spans from ${services.size} processes`);
    });
  },
);

describe('the kms and the vcs trace too (the service kit)', () => {
  const dirs: TempDir[] = [];
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const started: Array<{ name: string; url: string }> = [];

  beforeAll(async () => {
    collector = await startCollector();
    const [kmsDir, vcsDir] = await Promise.all(['trace-kms-', 'trace-vcs-'].map((p) => makeTempDir(p)));
    dirs.push(kmsDir!, vcsDir!);
    const start = async (name: string, pkg: string, dir: TempDir, args: string[]) => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      await startProcess(serviceBin(pkg), {
        name,
        args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, '--log-level', 'warning', ...args],
        readyUrl: `${url}/healthcheck`,
        readyStatus: (status) => status === 200,
      });
      started.push({ name, url });
      return url;
    };
    const kms = await start('kms-server', '@anchor/kms', kmsDir!, ['--dev-mode', '--tracing-otlp-url', collector.url]);
    await start('vcs-server', '@anchor/vcs', vcsDir!, ['--kms-url', kms, '--tracing-otlp-url', collector.url]);
  });

  afterAll(async () => {
    await stopAllProcesses();
    await new Promise((resolve) => collector?.server.close(resolve));
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  it("serves a request carrying traceparent in a server span under the caller's span", async () => {
    for (const { name, url } of started) {
      const traceId = randomBytes(16).toString('hex');
      const parentId = randomBytes(8).toString('hex');
      const response = await fetch(`${url}/healthcheck`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
      expect(response.status, name).toBe(200);
      const span = await waitFor(
        async () => collector.spans.find((candidate) => candidate.traceId === traceId && candidate.service === name),
        { timeoutMs: 20_000, intervalMs: 250, description: `${name}'s span of the traced request` },
      );
      expect(span).toMatchObject({ name: 'GET /healthcheck', parentSpanId: parentId });
    }
  });
});
