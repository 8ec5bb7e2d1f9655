/**
 * A queue topic whose dead letters the node keeps, and what its feature does around an operator's decision.
 * The message body is kept as published; replaying publishes it again on the topic.
 */
export interface DeadLetterSource {
  /** The topic (as the node names it, without the queue namespace). */
  readonly topic: string;
  /** What the message was about, shown to the operator (e.g. the activity and the inbox); undefined when gone. */
  describe(body: unknown): Promise<Record<string, unknown> | undefined>;
  /** Makes the message's work pending again, before it is published again. */
  reviving(body: unknown): Promise<void>;
  /** Settles the message's work for good when the operator discards it. */
  discarding(body: unknown): Promise<void>;
}
