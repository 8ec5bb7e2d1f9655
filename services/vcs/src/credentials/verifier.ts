import { AppError, badRequest, errorMessage } from '@anchor/common/errors';
import { isDateTimeStamp, verifyDocument, type DocumentLoader, type ProofPurpose } from '@anchor/common/jsonld';
import { defineSchema, validate } from '@anchor/common/schemas';
import type { VctLog } from '../anchoring/vct-log.js';
import type { DidResolution } from '../dids/did-resolution.js';
import type { VcsMetrics } from '../metrics.js';
import type { StatusSource } from '../credential-status/status-source.js';
import { checkCredential, checkPresentation, issuerIdOf } from './credential-model.js';
import { expirationProblem, validFromProblem, type ValidityTime } from './validity-period.js';

export const CREDENTIAL_CHECKS = ['proof', 'expiration', 'validFrom', 'status', 'credentialStatus', 'logged'] as const;
export const PRESENTATION_CHECKS = ['proof', 'expiration', 'validFrom', 'status', 'credentialStatus'] as const;
/** What runs when a request names no checks. */
export const DEFAULT_CHECKS = ['proof', 'expiration', 'validFrom'] as const;

export interface VerifyRequestOptions {
  checks?: string[];
  domain?: string;
  challenge?: string;
  /** The `logged` check of a credential issued elsewhere: the log's timestamp of it (epoch ms). */
  vctTimestamp?: number;
  /** The time the expiration and validFrom checks are made at (a date-time); default now. */
  validAt?: string;
}

export interface VerifierOptions {
  /** The allowance of the expiration and validFrom checks (`--verify-clock-skew`). */
  clockSkewMs: number;
  /** The verifier's clock (tests). */
  now?: () => number;
}

const OPTIONS = {
  type: 'object',
  properties: {
    checks: { type: 'array', items: { type: 'string' } },
    domain: { type: 'string', minLength: 1 },
    challenge: { type: 'string', minLength: 1 },
    vctTimestamp: { type: 'integer', minimum: 0 },
    validAt: { type: 'string', minLength: 1, description: 'an ISO 8601 date-time with a zone' },
  },
} as const;

export const VERIFY_CREDENTIAL_REQUEST = defineSchema<{
  verifiableCredential: unknown;
  options?: VerifyRequestOptions;
}>({
  $id: 'urn:anchor:schema:vcs:verify-credential',
  type: 'object',
  required: ['verifiableCredential'],
  properties: { verifiableCredential: { type: 'object' }, options: OPTIONS },
});

export const VERIFY_PRESENTATION_REQUEST = defineSchema<{
  verifiablePresentation: unknown;
  options?: VerifyRequestOptions;
}>({
  $id: 'urn:anchor:schema:vcs:verify-presentation',
  type: 'object',
  required: ['verifiablePresentation'],
  properties: { verifiablePresentation: { type: 'object' }, options: OPTIONS },
});

/** A failed check, as vc-rest reports it. */
export interface FailedCheck {
  check: string;
  error: string;
  verificationMethod?: string;
}

export interface Verification {
  /** The checks that ran and passed, in the order asked. */
  passed: string[];
  failed: FailedCheck[];
}

/**
 * Runs the checks a verifier asks for (`DEFAULT_CHECKS` when it names none): `proof` (every proof, purpose and
 * relationship against the resolved DID document, challenge and domain, and the key bound to the credential's
 * issuer, or the presentation's holder: listed under that relationship in the issuer's or holder's own DID
 * document), `expiration` and `validFrom` (the validity period against now or `validAt`, within the clock skew
 * allowance), `status` / `credentialStatus` (the status list credential fetched, its proof
 * and issuer checked, the bit read), and `logged` (inclusion in the transparency log against its current STH).
 */
export class CredentialVerifier {
  constructor(
    private readonly resolution: DidResolution,
    private readonly statusSource: StatusSource,
    private readonly log: VctLog | undefined,
    private readonly metrics: VcsMetrics,
    private readonly documentLoader: DocumentLoader,
    private readonly options: VerifierOptions,
  ) {}

  private validityTime(options: VerifyRequestOptions): ValidityTime {
    const { validAt } = options;
    if (validAt !== undefined && !isDateTimeStamp(validAt))
      throw badRequest(`options.validAt must be an ISO 8601 date-time with a zone, not ${JSON.stringify(validAt)}`);
    const at = validAt === undefined ? (this.options.now ?? Date.now)() : Date.parse(validAt);
    return { at, skewMs: this.options.clockSkewMs };
  }

  async verifyCredential(body: unknown): Promise<Verification> {
    const request = validate(VERIFY_CREDENTIAL_REQUEST, body, { what: 'verify request' });
    const { credential } = checkCredential(request.verifiableCredential, 'verifiableCredential');
    const options = request.options ?? {};
    const time = this.validityTime(options);
    return this.timed('credential', async () => {
      const result: Verification = { passed: [], failed: [] };
      for (const check of options.checks ?? DEFAULT_CHECKS) {
        let failure: Omit<FailedCheck, 'check'> | undefined;
        if (check === 'proof')
          failure = await this.proofProblem(credential, 'assertionMethod', options, issuerIdOf(credential), 'issuer');
        else if (check === 'expiration') failure = asFailure(expirationProblem(credential, time));
        else if (check === 'validFrom') failure = asFailure(validFromProblem(credential, time));
        else if (check === 'status' || check === 'credentialStatus') failure = await this.statusProblem(credential);
        else if (check === 'logged') failure = await this.loggedProblem(credential, options.vctTimestamp);
        else failure = { error: 'check not supported' };
        record(result, check, failure);
      }
      return result;
    });
  }

  async verifyPresentation(body: unknown): Promise<Verification> {
    const request = validate(VERIFY_PRESENTATION_REQUEST, body, { what: 'verify request' });
    const presentation = checkPresentation(request.verifiablePresentation, 'verifiablePresentation');
    const embedded = presentation.verifiableCredential;
    const credentials = (embedded === undefined ? [] : Array.isArray(embedded) ? embedded : [embedded]).map(
      (credential, index) =>
        checkCredential(credential, `verifiablePresentation.verifiableCredential[${index}]`).credential,
    );
    const options = request.options ?? {};
    const time = this.validityTime(options);
    const holder = holderIdOf(presentation);
    return this.timed('presentation', async () => {
      const result: Verification = { passed: [], failed: [] };
      for (const check of options.checks ?? DEFAULT_CHECKS) {
        let failure: Omit<FailedCheck, 'check'> | undefined;
        if (check === 'proof') {
          failure = await this.proofProblem(presentation, 'authentication', options, holder, 'holder');
          for (const [index, credential] of credentials.entries()) {
            if (failure) break;
            const problem = await this.proofProblem(
              credential,
              'assertionMethod',
              {},
              issuerIdOf(credential),
              'issuer',
            );
            if (problem) failure = { ...problem, error: `verifiableCredential[${index}]: ${problem.error}` };
          }
        } else if (check === 'expiration' || check === 'validFrom') {
          const problemOf = check === 'expiration' ? expirationProblem : validFromProblem;
          for (const [index, credential] of credentials.entries()) {
            const problem = problemOf(credential, time);
            if (problem) {
              failure = { error: `verifiableCredential[${index}]: ${problem}` };
              break;
            }
          }
        } else if (check === 'status' || check === 'credentialStatus') {
          for (const [index, credential] of credentials.entries()) {
            const problem = await this.statusProblem(credential);
            if (problem) {
              failure = { error: `verifiableCredential[${index}]: ${problem.error}` };
              break;
            }
          }
        } else failure = { error: 'check not supported' };
        record(result, check, failure);
      }
      return result;
    });
  }

  /**
   * Every proof must verify and be made with a key of `controller` (the issuer, the holder) listed under
   * `purpose` in its own DID document; vc-rest's exact challenge and domain rule: each side set only
   * with the other. A presentation without a holder binds no controller.
   */
  private async proofProblem(
    document: Record<string, unknown>,
    purpose: ProofPurpose,
    options: { domain?: string | undefined; challenge?: string | undefined },
    controller: string | undefined,
    role: 'issuer' | 'holder',
  ): Promise<Omit<FailedCheck, 'check'> | undefined> {
    let verification;
    try {
      verification = await verifyDocument(document, {
        resolver: this.resolution.verificationMethods,
        documentLoader: this.documentLoader,
        proofPurpose: purpose,
        ...(options.domain !== undefined ? { domain: options.domain } : {}),
        ...(options.challenge !== undefined ? { challenge: options.challenge } : {}),
      });
    } catch (error) {
      if (error instanceof AppError && error.retryable) throw error;
      return { error: errorMessage(error) };
    }
    if (verification.proofs.length === 0) return { error: verification.error ?? 'the document carries no proof' };
    const failed = verification.proofs.find((proof) => !proof.verified);
    if (failed) {
      return {
        error: `proof ${failed.index} (${failed.failure?.check ?? 'unknown'}): ${failed.failure?.message ?? 'not verified'}`,
        ...(typeof failed.verificationMethod === 'string' ? { verificationMethod: failed.verificationMethod } : {}),
      };
    }
    const proofs = Array.isArray(document.proof) ? document.proof : [document.proof];
    if (controller !== undefined || role === 'issuer')
      for (const [index, proof] of proofs.entries()) {
        const problem = await this.bindingProblem(
          controller,
          (proof as { verificationMethod: string }).verificationMethod,
          purpose,
          role,
        );
        if (problem)
          return {
            error: `proof ${index} (${role}): ${problem}`,
            verificationMethod: (proof as { verificationMethod: string }).verificationMethod,
          };
      }
    for (const [index, proof] of proofs.entries()) {
      const { challenge, domain } = proof as { challenge?: unknown; domain?: unknown };
      if (options.challenge === undefined && challenge !== undefined)
        return {
          error: `proof ${index} (challenge): invalid challenge in the proof: expected none, got ${JSON.stringify(challenge)}`,
        };
      if (options.domain === undefined && domain !== undefined)
        return {
          error: `proof ${index} (domain): invalid domain in the proof: expected none, got ${JSON.stringify(domain)}`,
        };
    }
    return undefined;
  }

  /** Why the key `method` is not `controller`'s for `purpose`, or undefined when it is. */
  private async bindingProblem(
    controller: string | undefined,
    method: string,
    purpose: ProofPurpose,
    role: 'issuer' | 'holder',
  ): Promise<string | undefined> {
    if (controller === undefined) return `the credential names no ${role}`;
    if (!controller.startsWith('did:')) return `the ${role} ${controller} is not a DID, so no key can be bound to it`;
    try {
      if (await this.resolution.controls(controller, method, purpose)) return undefined;
    } catch (error) {
      if (error instanceof AppError && error.retryable) throw error;
      return `the ${role} ${controller} does not resolve: ${errorMessage(error)}`;
    }
    return `${method} is not a key of the ${role} ${controller}: its DID document does not list it under ${purpose}`;
  }

  /** No credentialStatus passes (as in vc-rest); each entry's list must be the issuer's and its bit clear. */
  private async statusProblem(credential: Record<string, unknown>): Promise<Omit<FailedCheck, 'check'> | undefined> {
    const status = credential.credentialStatus;
    if (status === undefined) return undefined;
    const issuer = issuerIdOf(credential);
    for (const entry of Array.isArray(status) ? status : [status]) {
      const problem = await this.statusSource.check(entry, issuer);
      if (problem !== undefined) return { error: problem };
    }
    return undefined;
  }

  private async loggedProblem(
    credential: Record<string, unknown>,
    timestamp: number | undefined,
  ): Promise<Omit<FailedCheck, 'check'> | undefined> {
    if (!this.log) return { error: 'check not supported: the service has no transparency log (--vct-url)' };
    const when =
      timestamp ??
      (typeof credential.id === 'string' ? await this.statusSource.receiptTimestamp(credential.id) : undefined);
    if (when === undefined) return { error: 'no log receipt is known for this credential (give options.vctTimestamp)' };
    const problem = await this.log.inclusionProblem(credential, when);
    return problem === undefined ? undefined : { error: problem };
  }

  private async timed(
    subject: 'credential' | 'presentation',
    work: () => Promise<Verification>,
  ): Promise<Verification> {
    const end = this.metrics.verifySeconds.startTimer({ subject });
    try {
      const result = await work();
      this.metrics.verifications.inc({ subject, outcome: result.failed.length === 0 ? 'verified' : 'failed' });
      return result;
    } finally {
      end();
    }
  }
}

function asFailure(problem: string | undefined): Omit<FailedCheck, 'check'> | undefined {
  return problem === undefined ? undefined : { error: problem };
}

/** The holder's id, whether the holder is a URI or an object; undefined when there is none. */
function holderIdOf(presentation: Record<string, unknown>): string | undefined {
  const holder = presentation.holder;
  if (typeof holder === 'string') return holder;
  if (typeof holder === 'object' && holder !== null && typeof (holder as { id?: unknown }).id === 'string')
    return (holder as { id: string }).id;
  return undefined;
}

function record(result: Verification, check: string, failure: Omit<FailedCheck, 'check'> | undefined): void {
  if (failure) result.failed.push({ check, ...failure });
  else result.passed.push(check);
}

/** vc-rest's answer: 200 `{"checks":[...]}`, or 400 with the failed checks. */
export function verificationAnswer(result: Verification): { checks: string[] } {
  if (result.failed.length > 0)
    throw badRequest(
      `verification failed: ${result.failed.map((failure) => `${failure.check}: ${failure.error}`).join('; ')}`,
      {
        details: { checks: result.failed },
      },
    );
  return { checks: result.passed };
}
