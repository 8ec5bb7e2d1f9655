import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { createHttpClient } from '../http-client/index.js';
import { createRequestSigner, createSignatureAuthenticator, SIGNATURE_SCHEMES } from '../httpsig/index.js';
import { startPeer, serviceOn, type Peer } from '../httpsig/loopback.test-helpers.js';
import { createMessageQueue, type MessageQueue } from '../mq/index.js';
import { tracedListener } from './traced-listener.js';
import { tracedQueue } from './traced-queue.js';
import { inSpan, startTracing, traceCarrier, tracingEnabled, type TracingHandle } from './tracing.js';

describe('tracing off', () => {
  it('records nothing, adds no headers and leaves queues and listeners as they are', async () => {
    expect(tracingEnabled()).toBe(false);
    expect(await inSpan('work', {}, async (span) => span)).toBeUndefined();
    expect(traceCarrier()).toBeUndefined();
    const queue = await createMessageQueue();
    expect(tracedQueue(queue)).toBe(queue);
    const listener = () => undefined;
    expect(tracedListener(listener)).toBe(listener);
    await queue.close();
  });
});

describe('tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: TracingHandle;
  let peer: Peer;
  let server: Server;
  let url: string;
  let queue: MessageQueue;
  const handled: Array<{ principal: string | undefined; traceparent: string | undefined }> = [];
  let settle: () => void = () => undefined;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'tracing-test', exporter });
    peer = await startPeer();
    queue = tracedQueue(await createMessageQueue());
    await queue.subscribe('work', async () => {
      await inSpan('handle work', {}, async () => undefined);
      settle();
    });
    const authenticate = createSignatureAuthenticator({ targetScheme: 'http' });
    server = createServer(
      tracedListener((req, res) => {
        void readBody(req)
          .then(async (rawBody) => {
            const signer = await authenticate({
              method: req.method ?? 'POST',
              originalUrl: req.url ?? '/',
              headers: req.headers,
              rawBody,
            });
            handled.push({ principal: signer?.actor, traceparent: req.headers.traceparent as string | undefined });
            await queue.publish('work', { received: true });
            res.writeHead(202, { 'content-type': 'application/json' }).end('{}');
          })
          .catch((error: unknown) => res.writeHead(401).end(JSON.stringify({ message: (error as Error).message })));
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await queue.close();
    await peer.close();
    await tracing.shutdown();
    expect(tracingEnabled()).toBe(false);
  });

  it.each(SIGNATURE_SCHEMES)(
    'a %s-signed request carries traceparent, still verifies, and the queue hand-over stays in the trace',
    async (scheme) => {
      exporter.reset();
      const key = KeyPair.generate('Ed25519');
      const sender = serviceOn(peer, `sender-${scheme}`, key);
      const client = createHttpClient({ signer: createRequestSigner({ keyId: sender.keyId, key, scheme }) });
      const done = new Promise<void>((resolve) => (settle = resolve));
      await inSpan('create', {}, () => client.request(`${url}/inbox`, { method: 'POST', json: { type: 'Offer' } }));
      await done;
      await client.close();

      const seen = handled.at(-1);
      expect(seen?.principal).toBe(sender.serviceId);
      expect(seen?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const spans = exporter.getFinishedSpans();
      const names = spans.map((span) => span.name);
      expect(names).toEqual(
        expect.arrayContaining(['create', 'POST /inbox', 'publish work', 'process work', 'handle work']),
      );
      const traceIds = new Set(spans.map((span) => span.spanContext().traceId));
      expect(traceIds.size).toBe(1);
      const byName = new Map(spans.map((span) => [span.name, span]));
      const parentOf = (name: string) => byName.get(name)?.parentSpanContext?.spanId;
      expect(parentOf('POST /inbox')).toBe(byName.get('create')?.spanContext().spanId);
      expect(parentOf('process work')).toBe(byName.get('publish work')?.spanContext().spanId);
      expect(parentOf('handle work')).toBe(byName.get('process work')?.spanContext().spanId);
    },
  );
});

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
