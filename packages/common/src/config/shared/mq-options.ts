import { checkAmqpUrls, checkNamespace, QUEUE_TYPES } from '../../mq/index.js';
import { opt } from '../options.js';

/**
 * `--mq-url`, `--mq-queue-type` and `--mq-namespace`: where a service's queues live and what they are named.
 * `shorts.url` keeps a service's historical alias (the node's `-q`).
 */
export function mqOptions(shorts: { url?: string } = {}) {
  return {
    mqUrl: opt.string({
      flag: 'mq-url',
      ...(shorts.url === undefined ? {} : { short: shorts.url }),
      env: ['MQ_URL'],
      secret: true,
      validate: (url) => (url.trim() === '' ? undefined : checkAmqpUrls(url.trim())),
      help: 'amqp:// URL of RabbitMQ, or the members of a RabbitMQ cluster as comma-separated URLs (tried in order; after a lost connection the next one); empty for the in-process queue',
    }),
    mqQueueType: opt.enum(QUEUE_TYPES, {
      flag: 'mq-queue-type',
      help: 'classic or quorum (replicated over a cluster, survives the loss of a minority of its members); default: quorum when --mq-url names several brokers, classic for one. Queues of a namespace keep the type they were created with',
    }),
    mqNamespace: opt.string({
      flag: 'mq-namespace',
      env: ['MQ_NAMESPACE'],
      validate: (value) => checkNamespace(value),
      help: "Prefix of this service's queue names, so services sharing a broker and vhost never take each other's work; default derived from the service id. Replicas of one service share it",
    }),
  };
}

/** The redelivery of a failing message: attempts before it is dead-lettered, and the backoff between them. */
export function mqRedeliveryOptions() {
  return {
    mqMaxAttempts: opt.int({
      flag: 'mq-redelivery-max-attempts',
      env: ['MQ_REDELIVERY_MAX_ATTEMPTS'],
      default: 30,
      min: 1,
      help: 'Deliveries before a failing message is dead-lettered',
    }),
    mqRedeliveryInitialInterval: opt.duration({
      flag: 'mq-redelivery-initial-interval',
      env: ['MQ_REDELIVERY_INITIAL_INTERVAL'],
      default: '2s',
      help: 'First redelivery delay',
    }),
    mqRedeliveryMultiplier: opt.number({
      flag: 'mq-redelivery-multiplier',
      env: ['MQ_REDELIVERY_MULTIPLIER'],
      default: 1.5,
      min: 1,
      help: 'Growth factor of redelivery delays',
    }),
    mqRedeliveryMaxInterval: opt.duration({
      flag: 'mq-redelivery-max-interval',
      env: ['MQ_REDELIVERY_MAX_INTERVAL'],
      default: '1m',
      help: 'Longest redelivery delay',
    }),
  };
}
