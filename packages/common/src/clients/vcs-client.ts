import { AppError } from '../errors/index.js';
import { createHttpClient, peerStatusOf, type HttpClient } from '../http-client/index.js';

export interface VcsClientOptions {
  /** The vcs's base URL, e.g. `http://127.0.0.1:8072`. */
  url: string;
  /** Bearer token for its write routes (`--api-token` / request tokens of the vcs). */
  token?: string;
  /** Per request. Default 60 s: creating a profile may wait for its DID to be published. */
  timeoutMs?: number;
}

/** An issuer profile as `GET /profile/{name}` answers it (vc-rest's fields). */
export interface IssuerProfile extends Record<string, unknown> {
  name: string;
  did?: string;
  signatureType?: string;
}

/** The transparency log's promise for an issued credential (the vcs's `VCT-Receipt` header). */
export interface VctReceipt {
  id: string;
  /** The log's timestamp of the entry (epoch ms): what the `logged` check proves inclusion under. */
  timestamp: number;
  signature: string;
}

/** `POST /verifier/credentials`'s answer: the checks run, and the failed ones with their reasons. */
export interface Verification {
  verified: boolean;
  status: number;
  checks: string[];
  /** The failed checks and why, when `verified` is false. */
  failures: unknown;
}

/**
 * The credential service's HTTP API (services/vcs/README.md), for tools and tests: issuer profiles, issue,
 * verify, and status updates. Verification failures are results (`verified: false`), not exceptions.
 */
export class VcsClient {
  readonly url: string;
  private readonly http: HttpClient;

  constructor(options: VcsClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    const token = options.token;
    this.http = createHttpClient({
      timeoutMs: options.timeoutMs ?? 60_000,
      ...(token === undefined ? {} : { bearerToken: () => token }),
    });
  }

  /** Whether `/healthcheck` answers 200 (false while it starts or when a dependency is down). */
  async healthy(): Promise<boolean> {
    try {
      await this.http.get(`${this.url}/healthcheck`, { retry: false, timeoutMs: 5_000 });
      return true;
    } catch {
      return false;
    }
  }

  /** The profile, or undefined when the vcs has none by that name. */
  async profile(name: string): Promise<IssuerProfile | undefined> {
    try {
      return (await this.http.get<IssuerProfile>(`${this.url}/profile/${encodeURIComponent(name)}`)).data;
    } catch (error) {
      if (peerStatusOf(error) === 404) return undefined;
      throw error;
    }
  }

  /** Creates an issuer profile; without `did` the vcs creates one (did:node on its node, else did:key). */
  async createProfile(profile: {
    name: string;
    uri: string;
    signatureType: string;
    [field: string]: unknown;
  }): Promise<IssuerProfile> {
    return (await this.http.post<IssuerProfile>(`${this.url}/profile`, profile)).data;
  }

  async issue(
    profile: string,
    credential: Record<string, unknown>,
    options: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    return (await this.issueWithReceipt(profile, credential, options)).credential;
  }

  /** Issues, and returns the log's receipt beside the credential when the vcs logs (its `VCT-Receipt` header). */
  async issueWithReceipt(
    profile: string,
    credential: Record<string, unknown>,
    options: Record<string, unknown> = {},
  ): Promise<{ credential: Record<string, unknown>; receipt?: VctReceipt }> {
    const body = Object.keys(options).length === 0 ? { credential } : { credential, options };
    const answer = await this.http.post<Record<string, unknown>>(
      `${this.url}/${encodeURIComponent(profile)}/credentials/issueCredential`,
      body,
    );
    const header = answer.headers['vct-receipt'];
    if (header === undefined) return { credential: answer.data };
    let receipt: VctReceipt;
    try {
      receipt = JSON.parse(header) as VctReceipt;
    } catch {
      throw new AppError(
        'bad_gateway',
        `the vcs answered a VCT-Receipt header that is not JSON: ${header.slice(0, 80)}`,
      );
    }
    return { credential: answer.data, receipt };
  }

  /** Runs `checks` (default proof and status) on a credential; failed checks are `verified: false` with reasons. */
  async verify(
    credential: unknown,
    checks: readonly string[] = ['proof', 'status'],
    options: Record<string, unknown> = {},
  ): Promise<Verification> {
    const { status, data } = await this.http.request<{ checks?: unknown[]; message?: string }>(
      `${this.url}/verifier/credentials`,
      {
        method: 'POST',
        json: { verifiableCredential: credential, options: { ...options, checks } },
        answerStatuses: [400],
      },
    );
    if (status === 200) return { verified: true, status, checks: [...checks], failures: undefined };
    return { verified: false, status, checks: [...checks], failures: data?.checks ?? data?.message ?? data };
  }

  /** Revokes or suspends (`status` true), or unsuspends (false), a credential the profile issued. */
  async updateStatus(profile: string, credentialId: string, status: boolean, statusPurpose?: string): Promise<void> {
    await this.http.post(`${this.url}/${encodeURIComponent(profile)}/credentials/status`, {
      credentialId,
      // vc-rest clients send the status as a string; the vcs takes both.
      credentialStatus: {
        type: 'StatusList2021Entry',
        status: String(status),
        ...(statusPurpose ? { statusPurpose } : {}),
      },
    });
  }

  close(): void {
    this.http.close();
  }
}
