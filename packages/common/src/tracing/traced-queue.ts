import type { Delivery, Handler, MessageQueue, SubscribeOptions } from '../mq/index.js';
import { contextFrom, inSpan, SpanKind, traceCarrier, tracingEnabled } from './tracing.js';

/**
 * The queue with trace context in its message headers: a publish carries the active context
 * (`traceparent`, `tracestate`), and each delivery is handled inside a consumer span under it, so work
 * handed over through the queue (an inbox activity, an anchor for the observer) stays in its trace. With
 * tracing off the queue is returned as it is.
 */
export function tracedQueue(queue: MessageQueue): MessageQueue {
  if (!tracingEnabled()) return queue;
  return {
    get kind() {
      return queue.kind;
    },
    publish: (topic, body, options = {}) =>
      inSpan(`publish ${topic}`, { kind: SpanKind.PRODUCER, attributes: { 'messaging.destination.name': topic } }, () =>
        queue.publish(topic, body, { ...options, headers: { ...options.headers, ...traceCarrier() } }),
      ),
    subscribe: <T>(topic: string, handler: Handler<T>, options?: SubscribeOptions) =>
      queue.subscribe<T>(
        topic,
        (delivery: Delivery<T>) =>
          inSpan(
            `process ${topic}`,
            {
              kind: SpanKind.CONSUMER,
              parent: contextFrom(delivery.headers),
              attributes: {
                'messaging.destination.name': topic,
                'messaging.message.id': delivery.id,
                attempt: delivery.attempt,
              },
            },
            () => handler(delivery),
          ),
        options,
      ),
    isConnected: () => queue.isConnected(),
    close: () => queue.close(),
  };
}
