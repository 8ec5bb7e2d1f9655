/** add-vc's answer (vct-kms.md §A.4): the log's promise to include the credential. */
export interface AddVcResponse {
  svct_version: number;
  /** base64 of the log id (`logIdOf`). */
  id: string;
  /** Epoch milliseconds the log assigned to the entry. */
  timestamp: number;
  /** base64 of the leaf's extensions: always empty. */
  extensions: string;
  /** base64 of the `DigitallySigned` JSON over `vcTimestampSignaturePayload`. */
  signature: string;
}

/** get-sth's answer: note `sha256_root_hash` here, `sha_256_root_hash` in the signed payload. */
export interface SignedTreeHead {
  tree_size: number;
  timestamp: number;
  /** base64 of the root hash. */
  sha256_root_hash: string;
  /** base64 of the `DigitallySigned` JSON over `treeHeadSignaturePayload`. */
  tree_head_signature: string;
}
