/**
 * Chooses the queue adapter from the services' MQ URL: empty or absent -> in-process (mem),
 * amqp:// or amqps:// -> RabbitMQ.
 */
import { badRequest } from '../errors/index.js';
import { createAmqpMessageQueue, redactUrl, type AmqpQueueOptions } from './amqp.js';
import { createMemMessageQueue } from './mem.js';
import { namespacedQueue, namespaceFor, type NamespaceOptions } from './namespaced.js';
import type { QueueOptions } from './options.js';
import type { MessageQueue } from './types.js';

export interface MessageQueueConfig extends QueueOptions, Omit<AmqpQueueOptions, 'url' | keyof QueueOptions> {
  /** MQ_URL: empty for the in-process queue, else an amqp:// or amqps:// URL. */
  url?: string;
  /**
   * The service's identity on a shared broker: its topics live under `namespace` (default derived from the
   * identity) and messages published under another identity are refused (see namespaced.ts).
   */
  identity?: string;
  namespace?: string;
  onForeignMessage?: NamespaceOptions['onForeignMessage'];
}

export async function createMessageQueue(config: MessageQueueConfig = {}): Promise<MessageQueue> {
  const { identity, namespace, onForeignMessage } = config;
  if (namespace !== undefined && identity === undefined)
    throw badRequest('an MQ namespace needs the identity of the service using it');
  const queue = await createAdapter(config);
  if (identity === undefined) return queue;
  try {
    return namespacedQueue(queue, {
      identity,
      namespace: namespace ?? namespaceFor(identity),
      ...(onForeignMessage ? { onForeignMessage } : {}),
    });
  } catch (error) {
    await queue.close();
    throw error;
  }
}

async function createAdapter(config: MessageQueueConfig): Promise<MessageQueue> {
  const url = config.url?.trim() ?? '';
  if (url === '') return createMemMessageQueue(config);
  if (/^amqps?:\/\//i.test(url)) return createAmqpMessageQueue({ ...config, url });
  throw badRequest(
    `unsupported message queue URL ${JSON.stringify(redactUrl(url))} (expected empty for in-process, or amqp:// / amqps://)`,
  );
}
