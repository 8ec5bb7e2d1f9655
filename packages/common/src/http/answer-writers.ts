import type { ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { Response } from 'express';
import type { Answer } from './handler.js';
import { withUtf8 } from './handler.js';
import { endWhenServerCloses } from './server.js';

/**
 * Writes an answer through `res.end` (the fast path): express's `res.send` would also hash the body for an
 * ETag, which costs more than a cached answer. The header fields go to `writeHead` as one flat list, as
 * `setHeader` would leave them (a later field replaces an earlier one of the same name): a response nobody set
 * a header on yet is then written without node's per-header bookkeeping, about a quarter of the CPU of a
 * small answer.
 */
export function writeAnswer(
  res: ServerResponse,
  answer: Answer,
  headers: ReadonlyArray<readonly [string, string]>,
): void {
  const body = answer.body;
  const fields: string[] = [];
  if (answer.headers === undefined) {
    for (const [name, value] of headers) fields.push(name, value);
  } else {
    const own = new Map<string, readonly [string, string]>();
    for (const [name, value] of [...headers, ...Object.entries(answer.headers)])
      own.set(name.toLowerCase(), [name, value]);
    if (answer.contentType !== undefined) own.delete('content-type');
    own.delete('content-length');
    for (const [name, value] of own.values()) fields.push(name, value);
  }
  if (answer.contentType !== undefined)
    fields.push('Content-Type', typeof body === 'string' ? withUtf8(answer.contentType) : answer.contentType);
  if (body instanceof Readable) {
    res.writeHead(answer.status ?? 200, fields);
    pipeStream(res, body, answer.longLived === true);
    return;
  }
  fields.push('Content-Length', body === undefined ? '0' : String(Buffer.byteLength(body)));
  res.writeHead(answer.status ?? 200, fields);
  res.end(body);
}

/**
 * Sends an answer through express (the kit's express routes): `res.send` gives a string or bytes their ETag and
 * turns a fresh conditional GET into a 304, as these routes have always answered.
 */
export function sendAnswer(res: Response, answer: Answer): void {
  res.status(answer.status ?? 200);
  if (answer.headers !== undefined)
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  // setHeader, not res.type: the media type as the handler gave it (res.type adds a charset to bytes of some types).
  if (answer.contentType !== undefined) res.setHeader('Content-Type', answer.contentType);
  const body = answer.body;
  if (body instanceof Readable) pipeStream(res, body, answer.longLived === true);
  else if (body === undefined) res.end();
  else res.send(body);
}

/** A stream answer: piped until its end, destroyed when the client goes away (or, long-lived, when the server closes). */
function pipeStream(res: ServerResponse, body: Readable, longLived: boolean): void {
  if (longLived) {
    res.flushHeaders();
    endWhenServerCloses(res);
  }
  pipeline(body, res, () => {
    // An error once the headers are out can only cut the response; pipeline has destroyed both sides.
  });
}
