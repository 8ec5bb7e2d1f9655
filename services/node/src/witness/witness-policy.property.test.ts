import { AppError } from '@anchor/common/errors';
import { createMemStoreProvider } from '@anchor/common/storage';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigValues } from '../runtime-config/config-values.js';
import { WitnessPolicySetting } from './policy-setting.js';
import { parseWitnessPolicy, type WitnessPolicy, type WitnessRole } from '@anchor/common/witness-policy';

/** Property tests of the witness-policy parser with a fixed seed (the same cases every run). */
const RUNS = { seed: 20261126, numRuns: 400 };

/** Any UTF-16 code unit, lone surrogates and controls included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** What a policy's tokens stand for, to build its text from and to predict its parse. */
interface PolicyParts {
  outOf: Partial<Record<WitnessRole, number>>;
  minPercent: Partial<Record<WitnessRole, number>>;
  operator?: 'AND' | 'OR';
  logRequired: boolean;
}

const roleNumbers = (max: number) =>
  fc.record({ batch: fc.nat({ max }), system: fc.nat({ max }) }, { requiredKeys: [] });
const policyParts: fc.Arbitrary<PolicyParts> = fc.record(
  {
    outOf: roleNumbers(999_999_999),
    minPercent: roleNumbers(100),
    operator: fc.constantFrom('AND' as const, 'OR' as const),
    logRequired: fc.boolean(),
  },
  { requiredKeys: ['outOf', 'minPercent', 'logRequired'] },
);

function tokensOf(parts: PolicyParts): string[] {
  return [
    ...Object.entries(parts.outOf).map(([role, n]) => `OutOf(${n},${role})`),
    ...Object.entries(parts.minPercent).map(([role, p]) => `MinPercent(${p},${role})`),
    ...(parts.operator ? [parts.operator] : []),
    ...(parts.logRequired ? ['LogRequired'] : []),
  ];
}

/** The grammar's meaning (witness-policy.ts): a role without MinPercent needs 100%, or 0% after OutOf(0,role). */
function expectedPolicy(parts: PolicyParts): WitnessPolicy {
  const rule = (role: WitnessRole) => ({
    minNumber: parts.outOf[role] ?? 0,
    minPercent: parts.minPercent[role] ?? (parts.outOf[role] === 0 ? 0 : 100),
  });
  return {
    batch: rule('batch'),
    system: rule('system'),
    operator: parts.operator ?? 'AND',
    logRequired: parts.logRequired,
  };
}

/** Tokens joined by any run of whitespace, with some before and after. */
const separators = fc.array(fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', ' \t '), { minLength: 1, maxLength: 12 });
function joined(tokens: readonly string[], spaces: readonly string[]): string {
  const space = (i: number) => spaces[i % spaces.length] as string;
  return space(0) + tokens.map((token, i) => token + space(i + 1)).join('');
}

function expectOnlyBadRequest(text: string): void {
  try {
    parseWitnessPolicy(text);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
  }
}

describe('parseWitnessPolicy (property, fixed seed)', () => {
  it('throws nothing but an AppError bad_request on arbitrary text and on shuffled grammar pieces', () => {
    const pieces = fc
      .array(
        fc.oneof(
          fc.constantFrom(
            'OutOf',
            'MinPercent',
            '(',
            ')',
            ',',
            'batch',
            'system',
            'AND',
            'OR',
            'LogRequired',
            ' ',
            '0',
            '100',
            '1000000000',
            '-1',
            '1e3',
          ),
          fc.string({ unit: anyCodeUnit, maxLength: 3 }),
        ),
        { maxLength: 20 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: anyCodeUnit, maxLength: 120 }), pieces), expectOnlyBadRequest),
      RUNS,
    );
  });

  it('reads every valid policy as the grammar says, whatever the token order and whitespace', () => {
    fc.assert(
      fc.property(
        policyParts.chain((parts) =>
          fc.tuple(
            fc.constant(parts),
            fc.shuffledSubarray(tokensOf(parts), { minLength: tokensOf(parts).length }),
            separators,
          ),
        ),
        ([parts, tokens, spaces]) => {
          expect(parseWitnessPolicy(joined(tokens, spaces))).toEqual(expectedPolicy(parts));
        },
      ),
      RUNS,
    );
  });

  it('refuses a policy naming any of its parts twice, with a 400', () => {
    fc.assert(
      fc.property(
        policyParts.filter((parts) => tokensOf(parts).length > 0),
        fc.nat(),
        (parts, pick) => {
          const tokens = tokensOf(parts);
          const repeated = tokens[pick % tokens.length] as string;
          expect(() => parseWitnessPolicy([...tokens, repeated].join(' '))).toThrow(/invalid witness policy/);
        },
      ),
      RUNS,
    );
  });

  it('the text POST /policy stores (whitespace normalised) parses back to the same policy', async () => {
    const setting = new WitnessPolicySetting(await ConfigValues.open(createMemStoreProvider()));
    await fc.assert(
      fc.asyncProperty(policyParts, separators, async (parts, spaces) => {
        const text = joined(tokensOf(parts), spaces);
        const stored = await setting.set(text);
        if (tokensOf(parts).length === 0) {
          expect(stored).toBeUndefined();
          return;
        }
        expect(stored).toBe(tokensOf(parts).join(' '));
        expect(await setting.text()).toBe(stored);
        expect(parseWitnessPolicy(stored ?? '')).toEqual(parseWitnessPolicy(text));
        expect(await setting.policy()).toEqual(expectedPolicy(parts));
      }),
      { ...RUNS, numRuns: 200 },
    );
  });
});
