/**
 * Message rules shared by the adapters: topic names, what a publish may carry, the transport headers
 * (attempt count, original publish time, dead-letter details) and which of them a handler sees.
 */
import { randomUUID } from 'node:crypto';
import { badRequest } from '../errors/index.js';
import type { DeadLetterReason, PublishOptions } from './types.js';

/** Header names the adapters set. User headers may not start with "x-". */
export const HEADERS = Object.freeze({
  /** Delivery number (1 on the first delivery). Transport-only. */
  attempt: 'x-attempt',
  /** Epoch ms of the original publish. Transport-only. */
  publishedAt: 'x-published-at',
  /** On a message in an AMQP delay queue: epoch ms when it is due on its topic. Transport-only. */
  dueAt: 'x-due-at',
  /** On dead letters: why ("max-attempts", "non-retryable", "invalid-message"). */
  deadLetterReason: 'x-dead-letter-reason',
  /** On dead letters: the last handler error's message. */
  deadLetterError: 'x-dead-letter-error',
  /** On dead letters: the topic the message failed on. */
  originalTopic: 'x-original-topic',
  /** On dead letters: how many deliveries failed. */
  failedAttempts: 'x-failed-attempts',
  /** Epoch ms of the first failed delivery: carried on redeliveries and onto the dead letter. */
  firstFailedAt: 'x-first-failed-at',
  /** On dead letters: epoch ms of the last failed delivery (when the message was dead-lettered). */
  deadLetteredAt: 'x-dead-lettered-at',
});

/** Longest delay accepted (the largest timer Node can set). */
export const MAX_DELAY_MS = 2_147_483_647;
const MAX_ERROR_TEXT = 1_000;
const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

export function checkTopic(topic: unknown): asserts topic is string {
  if (typeof topic !== 'string' || !TOPIC.test(topic) || topic.startsWith('amq.')) {
    throw badRequest(
      `invalid topic ${JSON.stringify(topic)}: use 1-200 letters, digits, ".", "_", ":" or "-" (not starting with "amq.")`,
    );
  }
}

export interface OutgoingMessage {
  id: string;
  json: string;
  headers: Record<string, string>;
  delayMs: number;
  publishedAt: number;
}

export function prepareMessage(topic: unknown, body: unknown, options: PublishOptions = {}): OutgoingMessage {
  checkTopic(topic);
  let json: string | undefined;
  try {
    json = JSON.stringify(body);
  } catch (error) {
    throw badRequest(`topic ${topic}: message body is not JSON-serialisable (${(error as Error).message})`);
  }
  if (json === undefined) throw badRequest(`topic ${topic}: message body is not JSON-serialisable`);
  const delayMs = options.delayMs ?? 0;
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    throw badRequest(`topic ${topic}: delayMs must be a number from 0 to ${MAX_DELAY_MS}`);
  }
  const id = options.messageId ?? randomUUID();
  if (typeof id !== 'string' || id.length === 0 || id.length > 255)
    throw badRequest(`topic ${topic}: messageId must be a string of 1-255 characters`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (name.toLowerCase().startsWith('x-'))
      throw badRequest(`topic ${topic}: header "${name}": names starting with "x-" are reserved`);
    if (typeof value !== 'string') throw badRequest(`topic ${topic}: header "${name}" must be a string`);
    headers[name] = value;
  }
  return { id, json, headers, delayMs: Math.ceil(delayMs), publishedAt: Date.now() };
}

const HIDDEN = new Set<string>([
  HEADERS.attempt,
  HEADERS.publishedAt,
  HEADERS.dueAt,
  'x-death',
  'x-first-death-exchange',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-last-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
]);

/** The headers a handler sees: user headers and dead-letter details, as strings; transport headers dropped. */
export function visibleHeaders(raw: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (HIDDEN.has(name) || value === undefined || value === null) continue;
    out[name] = Buffer.isBuffer(value)
      ? value.toString('utf8')
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  }
  return out;
}

/** The headers of a failed message going back for redelivery: the time of its first failure kept, or now. */
export function withFirstFailure(headers: Record<string, string>, now = Date.now()): Record<string, string> {
  return headers[HEADERS.firstFailedAt] === undefined ? { ...headers, [HEADERS.firstFailedAt]: String(now) } : headers;
}

export function deadLetterHeaders(
  headers: Record<string, string>,
  topic: string,
  reason: DeadLetterReason,
  error: string,
  failedAttempts: number,
): Record<string, string> {
  const now = Date.now();
  return {
    ...withFirstFailure(headers, now),
    [HEADERS.deadLetteredAt]: String(now),
    [HEADERS.deadLetterReason]: reason,
    [HEADERS.deadLetterError]: error.length > MAX_ERROR_TEXT ? `${error.slice(0, MAX_ERROR_TEXT)}...` : error,
    [HEADERS.originalTopic]: topic,
    [HEADERS.failedAttempts]: String(failedAttempts),
  };
}
