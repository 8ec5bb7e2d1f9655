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
  DEFAULT_WAIT_EPOCH_MS,
  defaultQueueType,
  quantizeDelay,
  QUEUE_TYPES,
  waitQueue,
  workQueue,
  WAIT_QUEUE_IDLE_MS,
  type QueueType,
} from './amqp-topology.js';
export { HEADERS, MAX_DELAY_MS } from './message.js';
export {
  backoffDelay,
  DEFAULT_QUEUE_DEFAULTS,
  failureOutcome,
  MAX_CONCURRENCY,
  MIN_REDELIVERY_JITTER_MS,
  redeliveryDelay,
  REDELIVERY_JITTER,
  type FailureOutcome,
  type QueueDefaults,
  type QueueOptions,
} from './options.js';
