import { describe, expect, it } from 'vitest';
import { badRequest } from '../errors/index.js';
import { createMetrics } from '../metrics/index.js';
import { call, serve } from './http.test-helpers.js';
import { createHttpApp } from './index.js';

/**
 * An error body is JSON whatever the handler had set before it failed: a handler answering text/plain that
 * throws after `res.type('text/plain')` (the node's POST /policy did, found by schemathesis) must not label
 * the `{"message"}` body text/plain.
 */
describe('the error mapper', () => {
  it('labels the error body application/json even when the handler set another type first', async () => {
    const http = createHttpApp({ metrics: createMetrics({ prefix: 'test_', processMetrics: false }) });
    http.routes.post('/policy', async (_req, res) => {
      res.type('text/plain').send(await Promise.reject(badRequest('invalid witness policy')));
    });
    const url = (await serve(http.listener)).url;
    const reply = await call(`${url}/policy`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.json).toEqual({ message: 'invalid witness policy' });
  });
});
