/**
 * Chooses the queue adapter from the services' MQ URL: empty or absent -> in-process (mem),
 * amqp:// or amqps:// -> RabbitMQ.
 */
import { badRequest } from '../errors/index.js';
import { createAmqpMessageQueue, redactUrl, type AmqpQueueOptions } from './amqp.js';
import { createMemMessageQueue } from './mem.js';
import type { QueueOptions } from './options.js';
import type { MessageQueue } from './types.js';

export interface MessageQueueConfig extends QueueOptions, Omit<AmqpQueueOptions, 'url' | keyof QueueOptions> {
  /** MQ_URL: empty for the in-process queue, else an amqp:// or amqps:// URL. */
  url?: string;
}

export async function createMessageQueue(config: MessageQueueConfig = {}): Promise<MessageQueue> {
  const url = config.url?.trim() ?? '';
  if (url === '') return createMemMessageQueue(config);
  if (/^amqps?:\/\//i.test(url)) return createAmqpMessageQueue({ ...config, url });
  throw badRequest(`unsupported message queue URL ${JSON.stringify(redactUrl(url))} (expected empty for in-process, or amqp:// / amqps://)`);
}
