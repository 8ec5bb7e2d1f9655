/**
 * A service's view of a shared broker. Every topic a service names is placed under its namespace
 * (`<namespace>.<topic>`: work, dead-letter and wait queues alike), so two services on one broker and one
 * vhost never consume each other's work, and every message carries the publisher's identity, so a message
 * that reaches a consumer of another identity anyway (two services configured with the same namespace) is
 * refused rather than processed as this service's own.
 *
 * A refused message is not dead-lettered at once: it goes back with the ordinary (jittered) retry backoff, so
 * the competing consumer it belongs to (the other service on the shared namespace) still gets it; only a
 * message nobody of its identity takes within the attempts ends in the dead-letter topic.
 */
import { createHash } from 'node:crypto';
import { badRequest, transient } from '../errors/index.js';
import { checkTopic } from './message.js';
import type { Handler, MessageQueue, PublishOptions, SubscribeOptions, Subscription } from './types.js';

/** The header naming the identity of the service that published a message. */
export const IDENTITY_HEADER = 'anchor-identity';

const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_DERIVED = 80;

export interface NamespaceOptions {
  /** Queue-name prefix: 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit. */
  namespace: string;
  /** Who this service is (e.g. a node's service id); stamped on every message and required of every message consumed. */
  identity: string;
  /** Told of every refused message (a shared namespace is a misconfiguration the operator must see). */
  onForeignMessage?: (topic: string, foreignIdentity: string | undefined) => void;
}

/** Whether `value` is usable as a namespace (the rule `--mq-namespace` is checked against). */
export function checkNamespace(value: string): string | undefined {
  return NAMESPACE.test(value)
    ? undefined
    : 'must be 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit';
}

/**
 * The default namespace for an identity such as `https://node1.example.com/services/node`: its characters
 * outside the queue-name alphabet replaced, readable in the broker's queue list; long identities keep a
 * readable head and a hash of the whole, so two identities never share a derived namespace by truncation.
 */
export function namespaceFor(identity: string): string {
  if (identity.length === 0) throw badRequest('an MQ namespace needs a non-empty identity');
  const readable = identity
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/_+$/, '');
  const digest = createHash('sha256').update(identity).digest('hex').slice(0, 12);
  if (readable.length === 0) return `ns-${digest}`;
  if (readable.length <= MAX_DERIVED) return readable;
  return `${readable.slice(0, MAX_DERIVED - 13)}-${digest}`;
}

class NamespacedMessageQueue implements MessageQueue {
  readonly kind: MessageQueue['kind'];
  private readonly prefix: string;

  constructor(
    private readonly inner: MessageQueue,
    private readonly options: NamespaceOptions,
  ) {
    const problem = checkNamespace(options.namespace);
    if (problem) throw badRequest(`MQ namespace ${JSON.stringify(options.namespace)} ${problem}`);
    if (options.identity.length === 0) throw badRequest('an MQ namespace needs a non-empty identity');
    this.kind = inner.kind;
    this.prefix = `${options.namespace}.`;
  }

  private queueTopic(topic: string): string {
    checkTopic(topic);
    return this.prefix + topic;
  }

  publish<T>(topic: string, body: T, options: PublishOptions = {}): Promise<void> {
    return this.inner.publish(this.queueTopic(topic), body, {
      ...options,
      headers: { ...options.headers, [IDENTITY_HEADER]: this.options.identity },
    });
  }

  subscribe<T>(topic: string, handler: Handler<T>, options?: SubscribeOptions): Promise<Subscription> {
    const { identity, onForeignMessage } = this.options;
    return this.inner.subscribe<T>(
      this.queueTopic(topic),
      async (delivery) => {
        const from = delivery.headers[IDENTITY_HEADER];
        if (from !== identity) {
          onForeignMessage?.(topic, from);
          throw transient(
            `message ${delivery.id} on ${topic} was published by ${from === undefined ? 'an unnamed publisher' : JSON.stringify(from)}, not by this service (${identity}): refused`,
          );
        }
        await handler({ ...delivery, topic });
      },
      options,
    );
  }

  isConnected(): boolean {
    return this.inner.isConnected();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `inner` seen through a namespace: what a service's code uses whenever a broker may be shared. */
export function namespacedQueue(inner: MessageQueue, options: NamespaceOptions): MessageQueue {
  return new NamespacedMessageQueue(inner, options);
}
