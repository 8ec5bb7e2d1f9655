/**
 * OpenTelemetry tracing for every service: one process-wide provider (OTLP/HTTP exporter when
 * `--tracing-otlp-url` is given, none otherwise), W3C trace context carried by HTTP headers, queue message
 * headers and stored records, and helpers that cost nothing when tracing is off.
 */
export {
  startTracing,
  tracingEnabled,
  inSpan,
  withSpan,
  traceCarrier,
  injectTraceHeaders,
  contextFrom,
  linkFrom,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanOptions,
  type TraceCarrier,
  type TracingHandle,
  type TracingSettings,
} from './tracing.js';
export { tracingOptions, tracingSettingsOf } from './tracing-options.js';
export { tracedQueue } from './traced-queue.js';
export { tracedListener } from './traced-listener.js';
