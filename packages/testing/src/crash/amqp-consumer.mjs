// Crash-test child: subscribes to a topic and holds every message it gets (printing "got <id>"), never
// finishing one, until it is killed.
import { AmqpMessageQueue } from '@anchor/common/mq';

const [url, topic, pool] = process.argv.slice(2);
const queue = await AmqpMessageQueue.connect({ url, connectTimeoutMs: 10_000 });
await queue.subscribe(
  topic,
  (delivery) => {
    console.log(`got ${delivery.id}`);
    return new Promise(() => undefined);
  },
  { concurrency: Number(pool) },
);
console.log('ready');
