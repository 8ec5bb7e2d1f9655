/**
 * A part of the node (Sidetree API, anchoring, observer, ActivityPub, discovery, ...). A feature registers
 * its routes and subscriptions when it is created from the NodeContext; `start` begins background work
 * (timers, recovery of unfinished work) once every feature exists and the HTTP server listens; `stop`
 * ends it. The server starts features in order and stops them in reverse.
 */
export interface NodeFeature {
  readonly name: string;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}
