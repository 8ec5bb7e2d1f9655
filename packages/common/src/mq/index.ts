export * from './types.js';
export { createMessageQueue, type MessageQueueConfig } from './factory.js';
export { createMemMessageQueue, MemMessageQueue } from './mem.js';
export { checkNamespace, IDENTITY_HEADER, namespacedQueue, namespaceFor, type NamespaceOptions } from './namespaced.js';
export {
  AmqpMessageQueue,
  checkAmqpUrl,
  checkAmqpUrls,
  createAmqpMessageQueue,
  redactUrl,
  splitAmqpUrls,
  type AmqpQueueOptions,
} from './amqp.js';
export {
  defaultQueueType,
  delayQueue,
  parseDelayQueue,
  quantizeDelay,
  QUEUE_TYPES,
  workQueue,
  type QueueSpec,
  type QueueType,
} from './amqp-topology.js';
export { DELAY_PREFETCH } from './amqp-subscription.js';
export { HEADERS, MAX_DELAY_MS } from './message.js';
export {
  backoffDelay,
  DEFAULT_QUEUE_DEFAULTS,
  failureOutcome,
  MAX_CONCURRENCY,
  MIN_REDELIVERY_JITTER_MS,
  redeliveryDelay,
  REDELIVERY_JITTER,
  retryBackoffs,
  type FailureOutcome,
  type QueueDefaults,
  type QueueOptions,
} from './options.js';
