import { defineSchema, validate } from '@anchor/common/schemas';
import type { VcsMetrics } from '../metrics.js';
import type { Profiles } from '../profiles/profiles.js';
import { checkPresentation, type Credential } from './credential-model.js';
import type { IssueOptions } from './issuer.js';
import type { ProofSigning } from './proof-signing.js';

export const PROVE_REQUEST = defineSchema<{ presentation: Record<string, unknown>; options?: IssueOptions }>({
  $id: 'urn:anchor:schema:vcs:prove-presentation',
  type: 'object',
  required: ['presentation'],
  properties: {
    presentation: { type: 'object', description: 'the presentation to sign' },
    options: {
      type: 'object',
      properties: {
        verificationMethod: { type: 'string' },
        assertionMethod: { type: 'string' },
        proofPurpose: { type: 'string' },
        created: { type: 'string' },
        challenge: { type: 'string', minLength: 1 },
        domain: { type: 'string', minLength: 1 },
      },
    },
  },
});

/** Signs presentations for holder profiles (`POST /{profile}/prove/presentations`); purpose authentication by default. */
export class PresentationProver {
  constructor(
    private readonly profiles: Profiles,
    private readonly signing: ProofSigning,
    private readonly metrics: VcsMetrics,
  ) {}

  async prove(profileName: string, body: unknown): Promise<Credential> {
    const profile = await this.profiles.get('holder', profileName);
    const request = validate(PROVE_REQUEST, body, { what: 'prove request' });
    let presentation = checkPresentation(request.presentation);
    if (profile.overwriteHolder || presentation.holder === undefined)
      presentation = { ...presentation, holder: profile.did };
    else {
      const holder = presentation.holder;
      const id = typeof holder === 'string' ? holder : (holder as { id?: unknown }).id;
      await this.signing.requireOwnDid(profile, typeof id === 'string' ? id : undefined, 'presentation.holder');
    }
    const options = request.options ?? {};
    const signed = await this.signing.sign(
      presentation,
      profile,
      {
        verificationMethod: options.verificationMethod ?? options.assertionMethod,
        proofPurpose: options.proofPurpose,
        created: options.created,
        challenge: options.challenge,
        domain: options.domain,
      },
      'authentication',
    );
    this.metrics.presentationsSigned.inc({ profile: profile.name });
    return signed;
  }
}
