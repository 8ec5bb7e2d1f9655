import { AmqpMessageQueue, createAmqpMessageQueue } from '@anchor/common/mq';
import { AMQP_LABEL, AMQP_URL, amqpUnavailable, deleteQueues } from '../amqp-broker/index.js';
import { testMessageQueue } from './index.js';

const unavailable = await amqpUnavailable();

testMessageQueue(
  'amqp',
  {
    create: (options) =>
      createAmqpMessageQueue({ url: AMQP_URL, publishTimeoutMs: 10_000, connectTimeoutMs: 5_000, ...options }),
    cleanup: async (queue, topics) => {
      if (queue instanceof AmqpMessageQueue) await deleteQueues(topics.flatMap((t) => queue.queuesOf(t)));
    },
  },
  unavailable === undefined
    ? {}
    : { skip: `RabbitMQ unreachable at ${AMQP_LABEL} (${unavailable}); set AMQP_URL or start rabbitmq-server` },
);
