// Crash-test child: publishes numbered messages with 20 publishes outstanding, printing "confirmed <n>"
// once the broker has confirmed message n, until it is killed.
import { AmqpMessageQueue } from '@anchor/common/mq';

const [url, topic] = process.argv.slice(2);
const queue = await AmqpMessageQueue.connect({ url, connectTimeoutMs: 10_000 });
console.log('ready');
let next = 0;
async function publisher() {
  for (;;) {
    const n = next++;
    await queue.publish(topic, { n }, { messageId: `m-${n}` });
    console.log(`confirmed ${n}`);
  }
}
await Promise.all(Array.from({ length: 20 }, publisher));
