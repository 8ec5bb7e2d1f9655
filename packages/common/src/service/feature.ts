/**
 * A part of a service (an API, a pipeline, a sequencer, ...). A feature registers its routes and
 * subscriptions when it is created from the service context; `start` begins background work (timers,
 * recovery of unfinished work) once every feature exists and the listener is up; `stop` ends it and
 * releases what the feature holds. The kit starts features in order and stops them in reverse.
 */
export interface Feature {
  readonly name: string;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}
