import type { AnchoringFeature } from './anchoring/anchoring-feature.js';
import type { AnchorWitnessing } from './anchoring/witnessing.js';
import type { ActivityPubFeature } from './activitypub/activitypub-feature.js';
import type { CasFeature } from './cas/cas-feature.js';
import type { NodeContext } from './context.js';
import type { DeadLettersFeature } from './dead-letters/dead-letters-feature.js';
import type { WellKnownFeature } from './well-known/well-known-feature.js';
import type { ExportFeature } from './export/export-feature.js';
import type { AnchorPropagationFeature } from './anchor-propagation/anchor-propagation-feature.js';
import type { LogMonitoringFeature } from './log-monitoring/log-monitoring-feature.js';
import type { ObserverFeature } from './observer/observer-feature.js';
import type { OperationStores } from './operations/operation-stores.js';
import type { ResolutionFeature } from './resolution/resolution-feature.js';
import type { SidetreeApiFeature } from './sidetree-api/sidetree-api-feature.js';
import type { AnchorCredentialsFeature } from './anchor-credentials/anchor-credentials-feature.js';
import type { VctClientFeature } from './vct-client/vct-client-feature.js';
import type { WitnessFeature } from './witness/witness-feature.js';

/** What `createServer` (server.ts) returns and takes: the node's programmatic API. */
export interface NodeServer {
  /** Listens, then starts every feature's background work (health says "Starting" until all have). */
  start(): Promise<void>;
  /** Lets in-flight requests finish, stops the features in reverse, then closes the queue and the store. */
  stop(): Promise<void>;
  /** Told when the node cannot go on in this process (its store needs a restart); `main` then exits 1. */
  onFatal(listener: (reason: string) => void): void;
  /** The listening URL (after start). */
  readonly url: string;
  readonly context: NodeContext;
  /** The parts later features build on (anchor propagation, well-known documents, system endpoints) and tests inspect. */
  readonly services: NodeServices;
}

export interface NodeServices {
  readonly stores: OperationStores;
  readonly cas: CasFeature;
  readonly anchorCredentials: AnchorCredentialsFeature;
  readonly resolution: ResolutionFeature;
  readonly vct: VctClientFeature;
  readonly observer: ObserverFeature;
  readonly anchoring: AnchoringFeature;
  readonly sidetreeApi: SidetreeApiFeature;
  readonly wellKnown: WellKnownFeature;
  /** The ActivityPub service: store, inbox, outbox, delivery; `outboxCount(type)` and `anchorAlternates(anchor)` for NodeInfo and WebFinger. */
  readonly activitypub: ActivityPubFeature;
  readonly witness: WitnessFeature;
  readonly anchorPropagation: AnchorPropagationFeature;
  readonly logMonitoring: LogMonitoringFeature;
  readonly deadLetters: DeadLettersFeature;
  /** The export for mirrors and the import that builds one. */
  readonly exports: ExportFeature;
}

export interface NodeServerOptions {
  /** Replaces the witnessing step (default: the witness feature's Offers to batch and system witnesses under the witness policy). */
  witnessing?: AnchorWitnessing;
}
