import { AppError } from '../errors/index.js';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WITNESS_POLICY,
  evaluateWitnessPolicy,
  explainWitnessPolicy,
  parseWitnessPolicy,
  requiredProofs,
  selectWitnesses,
  type PolicyWitness,
  type WitnessPolicy,
} from './index.js';

const batch = (uri: string, hasLog = false): PolicyWitness => ({ uri, roles: ['batch'], hasLog });
const system = (uri: string, hasLog = false): PolicyWitness => ({ uri, roles: ['system'], hasLog });
const both = (uri: string, hasLog = false): PolicyWitness => ({ uri, roles: ['batch', 'system'], hasLog });
const provedBy =
  (...uris: string[]) =>
  (uri: string) =>
    uris.includes(uri);
/** Always picks the first eligible witness: selections become predictable. */
const first = () => 0;

describe('parseWitnessPolicy', () => {
  it('an empty policy is the default: 100% batch AND 100% system', () => {
    expect(parseWitnessPolicy('')).toEqual(DEFAULT_WITNESS_POLICY);
    expect(parseWitnessPolicy('   ')).toEqual(DEFAULT_WITNESS_POLICY);
  });

  it("reads the policies of Orb's BDD suite", () => {
    expect(parseWitnessPolicy('MinPercent(100,batch) AND MinPercent(50,system)')).toEqual({
      batch: { minNumber: 0, minPercent: 100 },
      system: { minNumber: 0, minPercent: 50 },
      operator: 'AND',
      logRequired: false,
    });
    expect(parseWitnessPolicy('OutOf(1,system)').system).toEqual({ minNumber: 1, minPercent: 100 });
    expect(parseWitnessPolicy('OutOf(0,system)').system).toEqual({ minNumber: 0, minPercent: 0 });
    expect(parseWitnessPolicy('OutOf(2,batch) OR MinPercent(30,system) LogRequired')).toEqual({
      batch: { minNumber: 2, minPercent: 100 },
      system: { minNumber: 0, minPercent: 30 },
      operator: 'OR',
      logRequired: true,
    });
  });

  it.each([
    ['Minpercent(50,system)', /unknown token 'Minpercent\(50,system\)'/],
    ['MinPercent(50, system)', /unknown token/],
    ['MinPercent(101,batch)', /between 0 and 100/],
    ['OutOf(-1,batch)', /unknown token/],
    ['OutOf(1,witness)', /unknown token/],
    ['OutOf(1.5,batch)', /unknown token/],
    ['AND OR', /repeats the operator/],
    ['MinPercent(50,batch) MinPercent(60,batch)', /repeats MinPercent for batch/],
    ['LogRequired LogRequired', /repeats LogRequired/],
    ['and', /unknown token 'and'/],
  ])('refuses %s with a 400 naming the problem', (text, message) => {
    let caught: unknown;
    try {
      parseWitnessPolicy(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(400);
    expect((caught as AppError).message).toMatch(message);
  });
});

describe('requiredProofs', () => {
  it('is the smallest number of proofs that satisfies the rule', () => {
    expect(requiredProofs({ minNumber: 0, minPercent: 100 }, 3)).toBe(3);
    expect(requiredProofs({ minNumber: 0, minPercent: 50 }, 3)).toBe(2);
    expect(requiredProofs({ minNumber: 0, minPercent: 50 }, 2)).toBe(1);
    expect(requiredProofs({ minNumber: 0, minPercent: 0 }, 5)).toBe(0);
    expect(requiredProofs({ minNumber: 1, minPercent: 100 }, 5)).toBe(1);
    // The percentage caps the number: two out of a single witness is that witness.
    expect(requiredProofs({ minNumber: 2, minPercent: 100 }, 1)).toBe(1);
    expect(requiredProofs({ minNumber: 0, minPercent: 100 }, 0)).toBe(0);
  });
});

describe('evaluateWitnessPolicy', () => {
  const policy = parseWitnessPolicy('MinPercent(100,batch) AND MinPercent(50,system)');
  const witnesses = [batch('b1'), system('s1'), system('s2')];

  it('holds once every batch witness and half the system witnesses proved', () => {
    expect(evaluateWitnessPolicy(policy, witnesses, provedBy('b1', 's2'))).toBe(true);
    expect(evaluateWitnessPolicy(policy, witnesses, provedBy('b1'))).toBe(false);
    expect(evaluateWitnessPolicy(policy, witnesses, provedBy('s1', 's2'))).toBe(false);
  });

  it('explains the verdict: each role its term, witnesses counted and proofs', () => {
    const outcome = explainWitnessPolicy(policy, witnesses, provedBy('b1'));
    expect(outcome).toEqual({
      satisfied: false,
      operator: 'AND',
      batch: { role: 'batch', term: 'MinPercent(100,batch)', total: 1, collected: 1, holds: true },
      system: { role: 'system', term: 'MinPercent(50,system)', total: 2, collected: 0, holds: false },
    });
    const outOf = explainWitnessPolicy(parseWitnessPolicy('OutOf(2,system)'), witnesses, provedBy('s1', 'b1'));
    expect(outOf.system).toMatchObject({ term: 'OutOf(2,system) or MinPercent(100,system)', holds: false });
    expect(outOf.satisfied).toBe(false);
  });

  it('a role without witnesses holds; with no witnesses at all the default policy holds', () => {
    expect(evaluateWitnessPolicy(policy, [system('s1'), system('s2')], provedBy('s1'))).toBe(true);
    expect(evaluateWitnessPolicy(DEFAULT_WITNESS_POLICY, [], provedBy())).toBe(true);
  });

  it('OR needs one role only', () => {
    const either = parseWitnessPolicy('MinPercent(100,batch) OR OutOf(1,system)');
    expect(evaluateWitnessPolicy(either, witnesses, provedBy('s1'))).toBe(true);
    expect(evaluateWitnessPolicy(either, witnesses, provedBy('b1'))).toBe(true);
    expect(evaluateWitnessPolicy(either, witnesses, provedBy())).toBe(false);
  });

  it('a witness in both roles counts for both', () => {
    expect(evaluateWitnessPolicy(DEFAULT_WITNESS_POLICY, [both('x')], provedBy('x'))).toBe(true);
    expect(evaluateWitnessPolicy(DEFAULT_WITNESS_POLICY, [both('x'), system('s1')], provedBy('x'))).toBe(false);
  });

  it('LogRequired counts only witnesses with a log, on both sides of the fraction', () => {
    const logged = parseWitnessPolicy('OutOf(1,system) LogRequired');
    const mixed = [system('plain'), system('logged', true)];
    expect(evaluateWitnessPolicy(logged, mixed, provedBy('plain'))).toBe(false);
    expect(evaluateWitnessPolicy(logged, mixed, provedBy('logged'))).toBe(true);
    // 100% of the logged system witnesses, although a log-less one never answered.
    expect(evaluateWitnessPolicy(parseWitnessPolicy('LogRequired'), mixed, provedBy('logged'))).toBe(true);
  });

  it('OutOf(0,system) needs no system proof', () => {
    expect(evaluateWitnessPolicy(parseWitnessPolicy('OutOf(0,system)'), [system('s1')], provedBy())).toBe(true);
  });
});

describe('selectWitnesses', () => {
  const none = new Set<string>();

  it('selects every batch witness and half the system witnesses, at random', () => {
    const policy = parseWitnessPolicy('MinPercent(100,batch) AND MinPercent(50,system)');
    const witnesses = [batch('b1'), batch('b2'), system('s1'), system('s2'), system('s3'), system('s4')];
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const selection = selectWitnesses(policy, { witnesses, selected: none, excluded: none });
      expect(selection.found).toBe(true);
      const chosen = (selection as { additional: string[] }).additional;
      expect(chosen.filter((uri) => uri.startsWith('b')).sort()).toEqual(['b1', 'b2']);
      expect(chosen.filter((uri) => uri.startsWith('s'))).toHaveLength(2);
      for (const uri of chosen) seen.add(uri);
    }
    // Random: over many selections every system witness gets its turn.
    expect([...seen].sort()).toEqual(['b1', 'b2', 's1', 's2', 's3', 's4']);
  });

  it('selects nobody when there are no witnesses (the anchor is self-witnessed)', () => {
    expect(selectWitnesses(DEFAULT_WITNESS_POLICY, { witnesses: [], selected: none, excluded: none })).toEqual({
      found: true,
      additional: [],
    });
  });

  it('prefers a witness in both roles under AND', () => {
    const policy = parseWitnessPolicy('OutOf(1,batch) AND OutOf(1,system)');
    const selection = selectWitnesses(policy, {
      witnesses: [batch('b1'), system('s1'), both('x')],
      selected: none,
      excluded: none,
      random: first,
    });
    expect(selection).toEqual({ found: true, additional: ['x'] });
  });

  it('under OR takes the smaller role', () => {
    const policy = parseWitnessPolicy('MinPercent(100,batch) OR OutOf(1,system)');
    const selection = selectWitnesses(policy, {
      witnesses: [batch('b1'), batch('b2'), system('s1'), system('s2')],
      selected: none,
      excluded: none,
      random: first,
    });
    expect(selection).toEqual({ found: true, additional: ['s1'] });
  });

  it('re-selection replaces a silent witness and keeps those still counted on', () => {
    const policy = parseWitnessPolicy('MinPercent(100,batch) AND MinPercent(50,system)');
    const witnesses = [system('s1'), system('s2'), system('s3'), system('s4')];
    const selection = selectWitnesses(policy, {
      witnesses,
      selected: new Set(['s1', 's2']),
      excluded: new Set(['s1']),
      random: first,
    });
    expect(selection).toEqual({ found: true, additional: ['s3'] });
    // Nothing more is needed while the selected witnesses are still within their grace period.
    expect(selectWitnesses(policy, { witnesses, selected: new Set(['s1', 's2']), excluded: none })).toEqual({
      found: true,
      additional: [],
    });
  });

  it('reports when the eligible witnesses cannot satisfy the policy', () => {
    const selection = selectWitnesses(DEFAULT_WITNESS_POLICY, {
      witnesses: [system('s1'), system('s2')],
      selected: new Set(['s1']),
      excluded: new Set(['s1']),
    });
    expect(selection).toEqual({ found: false, reason: 'not enough eligible system witnesses for the policy' });
  });

  it('LogRequired selects only witnesses with a log', () => {
    const policy: WitnessPolicy = parseWitnessPolicy('OutOf(1,system) LogRequired');
    for (let i = 0; i < 20; i++) {
      expect(
        selectWitnesses(policy, {
          witnesses: [system('plain'), system('logged', true)],
          selected: none,
          excluded: none,
        }),
      ).toEqual({ found: true, additional: ['logged'] });
    }
  });
});
