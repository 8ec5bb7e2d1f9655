/** The wire shape of a DID's history, shared by the node that serves it and the explorer that draws it. */
/** One operation of a DID as its history lists it (`GET /sidetree/v1/identifiers/{did}/history`). */
export interface DidHistoryEntry {
  type: 'create' | 'update' | 'recover' | 'deactivate';
  /** Anchored (false: accepted by this node, waiting for its batch). */
  published: boolean;
  /** Whether resolution applied it; a refused one (wrong key, a replay) is listed all the same. */
  applied: boolean;
  /** The anchor it came in (published operations only). */
  anchor?: {
    canonicalReference: string;
    equivalentReferences: string[];
    transactionTime: number;
    transactionNumber?: number;
    operationIndex?: number;
    protocolVersion?: number;
    anchorOrigin?: string;
  };
  /** The `versionId` that resolves the DID as it was right after this operation (the anchor hash). */
  versionId?: string;
  /** The canonical id after this operation, when applied and published. */
  canonicalId?: string;
  /** True when this operation moved the canonical id (an applied, published create or recover). */
  canonicalIdChanged: boolean;
  /** True from an applied deactivate on. */
  deactivated: boolean;
  /** When this node accepted an unpublished operation, Unix seconds. */
  receivedTime?: number;
  /** base64url of the canonical operation request. */
  operationRequest: string;
}

export interface DidHistory {
  didSuffix: string;
  operations: DidHistoryEntry[];
}
