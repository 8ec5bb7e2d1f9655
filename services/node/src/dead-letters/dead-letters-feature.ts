import { getLogger } from '@anchor/common/log';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { deadLetterHandlers, type DeadLetterHandlers } from './dead-letter-handlers.js';
import { createDeadLetterMetrics } from './dead-letter-metrics.js';
import type { DeadLetterSource } from './dead-letter-source.js';
import { DeadLetterStore } from './dead-letter-store.js';
import { DeadLetters } from './dead-letters.js';

export interface DeadLettersFeature extends NodeFeature {
  readonly deadLetters: DeadLetters;
  readonly handlers: DeadLetterHandlers;
}

/**
 * Dead letters of the node's queue topics whose messages are work for a peer or from one (deliveries to
 * other inboxes, activities received in this inbox): kept at most `--dead-letters-max`, listed, inspected,
 * replayed or discarded on the admin routes `/dead-letters`, counted in `node_dead_letters*`.
 */
export async function createDeadLettersFeature(
  ctx: NodeContext,
  deps: { sources: readonly DeadLetterSource[] },
): Promise<DeadLettersFeature> {
  const metrics = createDeadLetterMetrics(ctx.metrics);
  const store = await DeadLetterStore.open(ctx.storage, ctx.config.queue.deadLettersMax, metrics);
  const deadLetters = new DeadLetters(store, ctx.mq, metrics, getLogger('dead-letters'), deps.sources);
  return {
    name: 'dead-letters',
    deadLetters,
    handlers: deadLetterHandlers(deadLetters),
    start: () => deadLetters.start(),
    stop: () => deadLetters.stop(),
  };
}
