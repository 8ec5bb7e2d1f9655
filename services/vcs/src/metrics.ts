import { REQUEST_BUCKETS, type Metrics } from '@anchor/common/metrics';

/** The vcs's own metrics (prefix `vcs_`), beside the kit's request metrics. */
export class VcsMetrics {
  readonly issued;
  readonly issueSeconds;
  readonly verifications;
  readonly verifySeconds;
  readonly presentationsSigned;
  readonly statusUpdates;
  readonly profilesCreated;

  constructor(metrics: Metrics) {
    this.issued = metrics.counter({ name: 'credentials_issued', help: 'Credentials issued', labelNames: ['profile'] });
    this.issueSeconds = metrics.histogram({
      name: 'issue_seconds',
      help: 'Seconds to issue one credential (checks, status allocation, proof, index, log)',
      buckets: REQUEST_BUCKETS,
    });
    this.verifications = metrics.counter({
      name: 'verifications',
      help: 'Verification requests by subject (credential, presentation) and outcome (verified, failed)',
      labelNames: ['subject', 'outcome'],
    });
    this.verifySeconds = metrics.histogram({
      name: 'verify_seconds',
      help: 'Seconds to run the requested checks of one credential or presentation',
      labelNames: ['subject'],
      buckets: REQUEST_BUCKETS,
    });
    this.presentationsSigned = metrics.counter({
      name: 'presentations_signed',
      help: 'Presentations signed for holder profiles',
      labelNames: ['profile'],
    });
    this.statusUpdates = metrics.counter({
      name: 'status_updates',
      help: 'Credential status changes by purpose (revocation, suspension)',
      labelNames: ['purpose'],
    });
    this.profilesCreated = metrics.counter({
      name: 'profiles_created',
      help: 'Profiles created by kind (issuer, holder) and DID method',
      labelNames: ['kind', 'method'],
    });
  }
}
