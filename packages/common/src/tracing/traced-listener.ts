import type { RequestListener } from 'node:http';
import { contextFrom, SpanKind, SpanStatusCode, tracingEnabled, withSpan } from './tracing.js';

/**
 * The listener with a server span per request, child of the caller's `traceparent` when it sends one, and
 * ended when the response closes (status and aborts recorded). With tracing off the listener is returned
 * as it is.
 */
export function tracedListener(listener: RequestListener): RequestListener {
  if (!tracingEnabled()) return listener;
  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    withSpan(
      `${req.method ?? 'GET'} ${path}`,
      {
        kind: SpanKind.SERVER,
        parent: contextFrom(req.headers),
        attributes: { 'http.request.method': req.method ?? 'GET', 'url.path': path },
      },
      (span) => {
        res.once('close', () => {
          span?.setAttribute('http.response.status_code', res.statusCode);
          if (!res.writableFinished) span?.setStatus({ code: SpanStatusCode.ERROR, message: 'aborted' });
          else if (res.statusCode >= 500) span?.setStatus({ code: SpanStatusCode.ERROR });
          span?.end();
        });
        listener(req, res);
      },
    );
  };
}
