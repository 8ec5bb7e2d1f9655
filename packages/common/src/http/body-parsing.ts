import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import './request.js';

/** Media types parsed as JSON: plain JSON, JSON-LD, ActivityStreams, and any other `+json` type. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/ld+json', 'application/activity+json', 'application/*+json'];

const keepRawBody = (req: IncomingMessage, _res: unknown, body: Buffer): void => {
  (req as express.Request).rawBody = body;
};

/**
 * Body parsers sharing one size limit. Every body's exact bytes land in `req.rawBody` (Digest checks of
 * HTTP signatures need them); `req.body` is parsed JSON (any JSON value, not only objects) for the JSON
 * types, a string for text/plain, and a Buffer for anything else; an empty body leaves both undefined. Their errors (malformed JSON, too
 * large, bad charset or encoding) are turned into JSON responses by the error mapper.
 */
export function bodyParsers(limit: number | string): RequestHandler[] {
  return [
    express.json({ type: JSON_MEDIA_TYPES, limit, strict: false, verify: keepRawBody }),
    express.text({ type: 'text/plain', limit, verify: keepRawBody }),
    express.raw({ type: () => true, limit, verify: keepRawBody }),
    forgetEmptyBody,
  ];
}

/**
 * A zero-length body is no body: left alone, the JSON parser would turn it into `{}` and the raw parser
 * into an empty Buffer, and handlers would validate something the client never sent.
 */
const forgetEmptyBody: RequestHandler = (req, _res, next) => {
  if (req.rawBody?.length === 0) {
    req.body = undefined;
    req.rawBody = undefined;
  }
  next();
};
