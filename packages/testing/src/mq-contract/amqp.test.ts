import { AmqpMessageQueue, createAmqpMessageQueue, type QueueType } from '@anchor/common/mq';
import { AMQP_LABEL, AMQP_URL, amqpUnavailable, deleteQueues } from '../amqp-broker/index.js';
import { testMessageQueue } from './index.js';

const unavailable = await amqpUnavailable();

const skip =
  unavailable === undefined
    ? {}
    : { skip: `RabbitMQ unreachable at ${AMQP_LABEL} (${unavailable}); set AMQP_URL or start rabbitmq-server` };

// The same contract over classic and over quorum queues (a one-member quorum on the single broker: the
// arguments and the dead-lettering of quorum wait queues are what differ, not the replication).
for (const queueType of ['classic', 'quorum'] as const satisfies readonly QueueType[]) {
  testMessageQueue(
    queueType === 'classic' ? 'amqp' : 'amqp (quorum queues)',
    {
      create: (options) =>
        createAmqpMessageQueue({
          url: AMQP_URL,
          queueType,
          publishTimeoutMs: 10_000,
          connectTimeoutMs: 5_000,
          ...options,
        }),
      cleanup: async (queue, topics) => {
        if (queue instanceof AmqpMessageQueue) await deleteQueues(topics.flatMap((t) => queue.queuesOf(t)));
      },
    },
    skip,
  );
}
