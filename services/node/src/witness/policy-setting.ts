import type { ConfigValues } from '../runtime-config/config-values.js';
import { DEFAULT_WITNESS_POLICY, parseWitnessPolicy, type WitnessPolicy } from '@anchor/common/witness-policy';

const SETTING = 'witness-policy';

/**
 * The witness policy of this node (orb.md §2.6 "Stored in config store key witness-policy"): kept in the
 * database so every instance applies the same one, read at each evaluation (one keyed read), so a change
 * through `POST /policy` on any instance applies to the next check of every anchor.
 */
export class WitnessPolicySetting {
  constructor(private readonly config: ConfigValues) {}

  /** The policy as it was posted (whitespace normalised), or undefined when none is set. */
  async text(): Promise<string | undefined> {
    return (await this.config.get<{ policy: string }>(SETTING))?.policy;
  }

  /** The policy in force: the stored one, else the default (100% batch and 100% system). */
  async policy(): Promise<WitnessPolicy> {
    const text = await this.text();
    return text === undefined ? DEFAULT_WITNESS_POLICY : parseWitnessPolicy(text);
  }

  /** Validates and stores a policy; an empty one removes it (the default applies again). */
  async set(text: string): Promise<string | undefined> {
    const normalised = text
      .trim()
      .split(/\s+/)
      .filter((token) => token !== '')
      .join(' ');
    if (normalised === '') {
      await this.config.delete(SETTING);
      return undefined;
    }
    parseWitnessPolicy(normalised);
    await this.config.set(SETTING, { policy: normalised });
    return normalised;
  }
}
