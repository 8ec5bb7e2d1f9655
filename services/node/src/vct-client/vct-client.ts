import { AppError, errorMessage, permanent } from '@anchor/common/errors';
import type { HttpClient } from '@anchor/common/http-client';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS, canonicalize } from '@anchor/common/jsonld';
import {
  envelopeProblem,
  logIdOf,
  vcEntryOf,
  vcTimestampSignaturePayload,
  type AddVcResponse,
} from '@anchor/common/vct';
import { LEDGER_TYPE_VCT_V1, ledgerTypeOf, publicKeyOf, type WebFingerClient } from '@anchor/common/webfinger';

export interface VctClientOptions {
  httpClient: HttpClient;
  webFinger: WebFingerClient;
  /** `--request-tokens` vct-read / vct-write bearer tokens. */
  readToken?: string | undefined;
  writeToken?: string | undefined;
}

/**
 * A client of a VCT transparency log (trustbloc vct wire format): adds an anchor credential and checks the
 * log's promise — the log id and the timestamp signature — against the public key the log publishes through
 * WebFinger, as the original's `vct.Client.AddVC` + `VerifyVCTimestampSignature` do.
 */
export class VctClient {
  constructor(private readonly options: VctClientOptions) {}

  /**
   * Logs `credential` (sent without proofs) and returns the verified entry timestamp. Network trouble and
   * 5xx are retryable AppErrors; a log that answers with a bad signature, another log id, or a 4xx is a
   * permanent failure of this attempt (it is retried too by the anchor pipeline, whose backoff caps it).
   */
  async addCredential(logUrl: string, credential: Record<string, unknown>): Promise<AddVcResponse> {
    const { proof: _proof, ...unsigned } = credential;
    const { data } = await this.options.httpClient.post<AddVcResponse>(`${logUrl}/v1/add-vc`, unsigned, {
      ...(this.options.writeToken !== undefined ? { token: this.options.writeToken } : {}),
    });
    if (
      typeof data !== 'object' ||
      data === null ||
      !Number.isSafeInteger(data.timestamp) ||
      data.timestamp < 0 ||
      typeof data.signature !== 'string' ||
      typeof data.id !== 'string'
    ) {
      throw permanent(`log ${logUrl} answered add-vc with an unexpected body`);
    }
    const publicKey = await this.publicKey(logUrl);
    const logId = logIdOf(publicKey).toString('base64');
    if (data.id !== logId)
      throw permanent(`log ${logUrl} answered with log id ${data.id}, but its WebFinger key gives ${logId}`);
    const nquads = await canonicalize(
      { ...unsigned, proof: null },
      { allowUndefinedTerms: [...ANCHOR_CREDENTIAL_UNDEFINED_TERMS] },
    );
    const payload = vcTimestampSignaturePayload(data.timestamp, vcEntryOf(nquads));
    const problem = envelopeProblem(data.signature, payload, publicKey);
    if (problem !== undefined) {
      // A cached key may be stale after a log key rotation: look it up again once before giving up.
      this.options.webFinger.forget(new URL(logUrl).origin, logUrl);
      const fresh = await this.publicKey(logUrl);
      const retried = envelopeProblem(data.signature, payload, fresh);
      if (retried !== undefined) throw permanent(`log ${logUrl} timestamp signature check failed: ${retried}`);
    }
    return data;
  }

  /** The log's public key bytes from WebFinger (`https://trustbloc.dev/ns/public-key`), checking its ledger type. */
  async publicKey(logUrl: string): Promise<Buffer> {
    let jrd;
    try {
      jrd = await this.options.webFinger.lookup(new URL(logUrl).origin, logUrl);
    } catch (error) {
      if (error instanceof AppError)
        throw new AppError(error.code, `WebFinger lookup of log ${logUrl} failed: ${error.message}`, {
          cause: error,
          retryable: error.retryable,
        });
      throw error;
    }
    const ledgerType = ledgerTypeOf(jrd);
    if (ledgerType !== undefined && ledgerType !== LEDGER_TYPE_VCT_V1)
      throw permanent(`log ${logUrl} announces ledger type ${ledgerType}, not ${LEDGER_TYPE_VCT_V1}`);
    const key = publicKeyOf(jrd);
    if (!key) throw permanent(`log ${logUrl} publishes no public key in WebFinger`);
    return key;
  }

  /** The log service's own health (`<origin>/healthcheck`): "success" or the reason it is not healthy. */
  async health(logUrl: string): Promise<string> {
    try {
      await this.options.httpClient.get(`${new URL(logUrl).origin}/healthcheck`, {
        timeoutMs: 3_000,
        ...(this.options.readToken !== undefined ? { token: this.options.readToken } : {}),
      });
      return 'success';
    } catch (error) {
      return `log ${logUrl} is unhealthy: ${errorMessage(error)}`;
    }
  }
}
