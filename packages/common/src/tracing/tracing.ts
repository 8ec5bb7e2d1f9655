import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Link, type Span };

/** W3C trace context as carried by a message or a stored record: `traceparent` and, when present, `tracestate`. */
export type TraceCarrier = Record<string, string>;

export interface TracingSettings {
  /** `service.name` of every span this process exports. */
  readonly serviceName: string;
  /** `service.instance.id`: which deployment of the service (a node's service URL), when it has one. */
  readonly instance?: string | undefined;
  /** OTLP/HTTP traces endpoint (`http://collector:4318/v1/traces`); absent: no exporter. */
  readonly otlpUrl?: string | undefined;
  /** Another exporter instead (tests); spans are then exported one by one as they end. */
  readonly exporter?: SpanExporter | undefined;
}

export interface TracingHandle {
  /** Exports what is buffered and unregisters the provider, so a later service in this process can register its own. */
  shutdown(): Promise<void>;
}

const TRACER_NAME = '@anchor/common';
let provider: BasicTracerProvider | undefined;

/**
 * Turns tracing on for this process when the settings name an exporter; otherwise nothing is registered
 * and every helper below returns at its first line (no spans, no context manager, no headers), so a
 * service without tracing pays one boolean test per call site. The OpenTelemetry API is process-global:
 * when two services share a process (tests), the first one's provider records the spans of both.
 */
export async function startTracing(settings: TracingSettings): Promise<TracingHandle> {
  const exporter =
    settings.exporter ?? (settings.otlpUrl === undefined ? undefined : await otlpExporter(settings.otlpUrl));
  if (exporter === undefined || provider !== undefined) return { shutdown: async () => undefined };
  const registered = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.serviceName,
      ...(settings.instance === undefined ? {} : { 'service.instance.id': settings.instance }),
    }),
    spanProcessors: [settings.exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(registered);
  provider = registered;
  return {
    async shutdown() {
      if (provider !== registered) return;
      provider = undefined;
      await registered.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** Loaded only when asked for: a service without tracing never loads the exporter's protocol code. */
async function otlpExporter(url: string): Promise<SpanExporter> {
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter({ url });
}

/** Whether spans are being recorded in this process. */
export function tracingEnabled(): boolean {
  return provider !== undefined;
}

function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The parent, when it is not the active context: a context extracted from a message or a record. */
  readonly parent?: Context | undefined;
  /** Other traces this span continues (a batch links the creates it anchors). */
  readonly links?: readonly Link[];
}

/**
 * Runs `work` inside a span named `name` (ended when `work` settles, its error recorded); with tracing
 * off it only calls `work`.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span?: Span) => Promise<T>): Promise<T> {
  if (provider === undefined) return work();
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(options.links ? { links: [...options.links] } : {}),
    },
    parent,
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Starts a span the caller ends (an HTTP exchange ends on the response's `close`), and runs `work` with it
 * active; with tracing off, `work` gets no span.
 */
export function withSpan<T>(name: string, options: SpanOptions, work: (span?: Span) => T): T {
  if (provider === undefined) return work();
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () => work(span));
}

/**
 * The active trace context as headers (`traceparent`, `tracestate`) to carry in a message or keep with a
 * record; undefined when tracing is off or no span is active.
 */
export function traceCarrier(): TraceCarrier | undefined {
  if (provider === undefined) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/** Adds the active trace context to outgoing headers (after any signature is computed: it is never signed). */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (provider !== undefined) propagation.inject(context.active(), headers);
}

/**
 * The context a carrier names (HTTP request headers, message headers, a stored record's carrier), for
 * `SpanOptions.parent`; undefined when tracing is off or the carrier has no valid `traceparent`.
 */
export function contextFrom(carrier: Readonly<Record<string, unknown>> | undefined): Context | undefined {
  if (provider === undefined || carrier === undefined) return undefined;
  const traceparent = carrier.traceparent;
  if (typeof traceparent !== 'string') return undefined;
  const headers: TraceCarrier = { traceparent };
  if (typeof carrier.tracestate === 'string') headers.tracestate = carrier.tracestate;
  const extracted = propagation.extract(ROOT_CONTEXT, headers);
  return trace.getSpanContext(extracted) === undefined ? undefined : extracted;
}

/** A link to the trace a carrier names (a batch links each operation's create), or undefined. */
export function linkFrom(carrier: Readonly<Record<string, unknown>> | undefined): Link | undefined {
  const linked = contextFrom(carrier);
  const spanContext = linked === undefined ? undefined : trace.getSpanContext(linked);
  return spanContext === undefined ? undefined : { context: spanContext };
}
