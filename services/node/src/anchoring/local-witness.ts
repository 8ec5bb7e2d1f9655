import type { Signer } from '@anchor/common/crypto';
import {
  ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
  createProof,
  type DataIntegrityProof,
  type DocumentLoader,
} from '@anchor/common/jsonld';
import type { LogSetting } from '../vct-client/log-setting.js';
import type { VctClient } from '../vct-client/vct-client.js';
import type { AnchorCredential } from '../anchor-model/anchor-credential.js';

export interface LocalWitnessOptions {
  /** The anchor-credential key: local, or in the kms. */
  signer: Signer;
  /** `did:web:<host>#<vc key id>`, published in /.well-known/did.json. */
  verificationMethod: string;
  /** Proof domain when no log backs the proof (`--anchor-credential-domain`, default the external endpoint). */
  domain: string;
  /** `--sign-with-local-witness`: put the log behind the node's proof (when a log is configured) for every batch. */
  useLog: boolean;
  /** This node's own anchor origins (external endpoint, service id): a batch naming one has the node as a witness. */
  ownOrigins: readonly string[];
  logSetting: LogSetting;
  vct: VctClient;
  /** Bundled and operator contexts (a witnessed credential may come from another node); default the bundled ones. */
  documentLoader?: DocumentLoader;
}

/**
 * The node's own proof on an anchor credential (orb.md §2.4 step 6, Orb's local witness): when a
 * transparency log is configured (`/log`), the credential is added to the log first and the proof records
 * the log — `domain` = the log URL, `created` = the log's timestamp, whose signature was checked against the
 * log's WebFinger key; without a log, `domain` = the anchor-credential domain and `created` = now. Either
 * way an Ed25519Signature2020 by the node's anchor-credential key.
 *
 * Re-running it for the same credential (after a crash) is safe: the log deduplicates entries by content
 * and answers with the first timestamp.
 */
export class LocalWitness {
  constructor(private readonly options: LocalWitnessOptions) {}

  /**
   * As Orb decides: the log backs the proof when `--sign-with-local-witness` is on (the default),
   * or when the node is itself a witness of the batch (one of its operations names this node as origin).
   */
  async proof(credential: AnchorCredential, batchOrigins: readonly string[]): Promise<DataIntegrityProof> {
    const selfWitness = batchOrigins.some((origin) => this.options.ownOrigins.includes(origin));
    const logUrl = this.options.useLog || selfWitness ? await this.options.logSetting.get() : undefined;
    let domain = this.options.domain;
    let created: string | undefined;
    if (logUrl !== undefined) {
      const entry = await this.options.vct.addCredential(logUrl, credential);
      domain = logUrl;
      created = new Date(entry.timestamp).toISOString();
    }
    return createProof(credential, {
      signer: this.options.signer,
      verificationMethod: this.options.verificationMethod,
      domain,
      ...(created !== undefined ? { created } : {}),
      allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
      ...(this.options.documentLoader ? { documentLoader: this.options.documentLoader } : {}),
    });
  }
}
