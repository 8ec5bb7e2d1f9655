import type { Response } from 'express';

/**
 * Sends a prepared body with its media type through `res.end`: express's `res.send` would also hash the
 * body for an ETag and check freshness, which costs more than the rest of a cached resolution. The hot
 * endpoints (operations, identifiers) answer this way; ETags would not help their clients anyway (every
 * create answer differs, and resolution results change with anchoring).
 */
export function sendText(res: Response, mediaType: string, body: string, status = 200): void {
  res.statusCode = status;
  res.setHeader('Content-Type', `${mediaType}; charset=utf-8`);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
