import { badRequest, notFound } from '@anchor/common/errors';
import { answer, type Handler } from '@anchor/common/http';
import type { DeadLetter } from './dead-letter-store.js';
import type { DeadLetters } from './dead-letters.js';

/** Dead letters listed per page by default, and at most. */
const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;

export interface DeadLetterHandlers {
  list: Handler;
  get: Handler;
  replay: Handler;
  discard: Handler;
}

/**
 * `GET /dead-letters` (`?topic=`, `?limit=`, `?after=`: newest first, `next` for the following page),
 * `GET /dead-letters/:id`, `POST /dead-letters/:id/replay` and `DELETE /dead-letters/:id`; each answers the
 * dead letter(s) with times as RFC 3339.
 */
export function deadLetterHandlers(deadLetters: DeadLetters): DeadLetterHandlers {
  const list: Handler = async (req) => {
    const topic = req.query.get('topic') ?? undefined;
    if (topic !== undefined && !deadLetters.topics.includes(topic))
      throw badRequest(`topic '${topic}' keeps no dead letters (topics: ${deadLetters.topics.join(', ')})`);
    const limitText = req.query.get('limit') ?? undefined;
    const limit = limitText === undefined ? DEFAULT_PAGE : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
      throw badRequest(`limit must be an integer from 1 to ${MAX_PAGE}`);
    const page = await deadLetters.list({ topic, limit, after: req.query.get('after') ?? undefined });
    return answer({
      json: { deadLetters: page.items.map(({ value }) => view(value)), ...(page.next ? { next: page.next } : {}) },
    });
  };

  const get: Handler = async (req) => answer({ json: view(await found(deadLetters, req.params['id'])) });

  const replay: Handler = async (req) =>
    answer({ json: view(await deadLetters.replay(await found(deadLetters, req.params['id']))) });

  const discard: Handler = async (req) =>
    answer({ json: view(await deadLetters.discard(await found(deadLetters, req.params['id']))) });

  return { list, get, replay, discard };
}

/** Queue message ids are 1-255 characters: anything else names no dead letter (and is no store key). */
const MAX_ID_LENGTH = 255;

async function found(deadLetters: DeadLetters, id: unknown): Promise<DeadLetter> {
  const record = typeof id === 'string' && id.length <= MAX_ID_LENGTH ? await deadLetters.get(id) : undefined;
  if (record === undefined) throw notFound(`no dead letter ${String(id)}`);
  return record;
}

function view(record: DeadLetter): Record<string, unknown> {
  return {
    id: record.id,
    topic: record.topic,
    reason: record.reason,
    error: record.error,
    attempts: record.attempts,
    publishedAt: new Date(record.publishedAt).toISOString(),
    firstFailedAt: new Date(record.firstFailedAt).toISOString(),
    lastFailedAt: new Date(record.lastFailedAt).toISOString(),
    ...(record.subject !== undefined ? { subject: record.subject } : {}),
    body: record.body,
    headers: record.headers,
  };
}
