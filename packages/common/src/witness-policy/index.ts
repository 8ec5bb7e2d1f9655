import { badRequest } from '../errors/index.js';

/**
 * The witness policy (orb.md §2.6): which share of an anchor's witnesses must return a proof before the
 * anchor is published. Pure code: parsing, evaluation and selection take everything they need as input;
 * the node selects and evaluates with it, the explorer's in-page verifier evaluates an anchor's proofs with it.
 *
 * Grammar: space-separated tokens, any order, each at most once per role:
 *   OutOf(n,batch|system)        at least n proofs of that role (n = 0: the role needs none)
 *   MinPercent(p,batch|system)   at least p% (0-100) of that role's witnesses
 *   LogRequired                  only witnesses with a transparency log count (and are selected)
 *   AND | OR                     how the batch and the system conditions combine (default AND)
 * Unset, a role needs 100% of its witnesses ("100% batch and 100% system", Orb's default).
 *
 * A role's condition holds, as in Orb, when `(n ≠ 0 and collected ≥ n) or collected/total ≥ p%`
 * (a role without witnesses holds). So `OutOf(2,system)` with a single system witness is satisfied by
 * its proof: the percentage (100% by default) caps the number.
 */
export type WitnessRole = 'batch' | 'system';

export interface RoleRule {
  /** OutOf n; 0 when not given. */
  minNumber: number;
  /** MinPercent p, 0-100; 100 when not given (0 after `OutOf(0,role)`). */
  minPercent: number;
}

export interface WitnessPolicy {
  batch: RoleRule;
  system: RoleRule;
  operator: 'AND' | 'OR';
  logRequired: boolean;
}

export const DEFAULT_WITNESS_POLICY: Readonly<WitnessPolicy> = Object.freeze({
  batch: { minNumber: 0, minPercent: 100 },
  system: { minNumber: 0, minPercent: 100 },
  operator: 'AND',
  logRequired: false,
});

const RULE = /^(OutOf|MinPercent)\((\d{1,9}),(batch|system)\)$/;

/** Parses a policy string; an empty string is the default policy. Throws a `bad_request` naming the bad token. */
export function parseWitnessPolicy(text: string): WitnessPolicy {
  const policy: WitnessPolicy = {
    batch: { ...DEFAULT_WITNESS_POLICY.batch },
    system: { ...DEFAULT_WITNESS_POLICY.system },
    operator: 'AND',
    logRequired: false,
  };
  const seen = new Set<string>();
  const once = (what: string, token: string): void => {
    if (seen.has(what)) throw badRequest(`invalid witness policy: '${token}' repeats ${what}`);
    seen.add(what);
  };
  for (const token of text
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '')) {
    if (token === 'AND' || token === 'OR') {
      once('the operator', token);
      policy.operator = token;
      continue;
    }
    if (token === 'LogRequired') {
      once('LogRequired', token);
      policy.logRequired = true;
      continue;
    }
    const match = RULE.exec(token);
    if (!match) {
      throw badRequest(
        `invalid witness policy: unknown token '${token}' (expected OutOf(n,batch|system), MinPercent(p,batch|system), LogRequired, AND, OR)`,
      );
    }
    const [, kind, digits, role] = match as unknown as [string, 'OutOf' | 'MinPercent', string, WitnessRole];
    const value = Number(digits);
    once(`${kind} for ${role}`, token);
    if (kind === 'MinPercent') {
      if (value > 100) throw badRequest(`invalid witness policy: '${token}' needs a percentage between 0 and 100`);
      policy[role].minPercent = value;
    } else {
      policy[role].minNumber = value;
      // OutOf(0,role): the role needs no proof at all (Orb sets its percentage to 0 too).
      if (value === 0 && !seen.has(`MinPercent for ${role}`)) policy[role].minPercent = 0;
    }
  }
  return policy;
}

/** A witness of an anchor as the policy sees it. One service may be both a batch and a system witness. */
export interface PolicyWitness {
  uri: string;
  roles: readonly WitnessRole[];
  /** Whether it writes its proofs into a transparency log (WebFinger ledger type vct-v1). */
  hasLog: boolean;
}

/** Whether a role's condition holds with `collected` proofs out of `total` witnesses. */
function roleHolds(rule: RoleRule, collected: number, total: number): boolean {
  if (rule.minNumber !== 0 && collected >= rule.minNumber) return true;
  // Integer form of collected/total >= p/100; a role without witnesses holds.
  return total === 0 || 100 * collected >= rule.minPercent * total;
}

/** The fewest proofs that make a role's condition hold (at most `total`, since 100% always holds). */
export function requiredProofs(rule: RoleRule, total: number): number {
  const byPercent = Math.ceil((rule.minPercent * total) / 100);
  return rule.minNumber !== 0 ? Math.min(rule.minNumber, byPercent) : byPercent;
}

function counts(
  policy: WitnessPolicy,
  witnesses: readonly PolicyWitness[],
  role: WitnessRole,
  proved: (uri: string) => boolean,
): { total: number; collected: number } {
  const members = witnesses.filter((w) => w.roles.includes(role) && (!policy.logRequired || w.hasLog));
  return { total: members.length, collected: members.filter((w) => proved(w.uri)).length };
}

/** How one role fared under the policy: its term, its witnesses counted, their proofs, whether it holds. */
export interface RoleOutcome {
  role: WitnessRole;
  /** The policy's term for the role as written in the grammar, e.g. `MinPercent(50,system)`. */
  term: string;
  total: number;
  collected: number;
  holds: boolean;
}

export interface PolicyOutcome {
  satisfied: boolean;
  operator: 'AND' | 'OR';
  batch: RoleOutcome;
  system: RoleOutcome;
}

/** A role's rule in the policy grammar (the default 100% included), to name the term that failed. */
export function roleTerm(rule: RoleRule, role: WitnessRole): string {
  const percent = `MinPercent(${rule.minPercent},${role})`;
  return rule.minNumber !== 0 ? `OutOf(${rule.minNumber},${role}) or ${percent}` : percent;
}

/**
 * The policy's verdict with each role's counts, so a reader (the explorer) can say which term failed. With
 * LogRequired only witnesses with a log count, on both sides of the fraction (one log-less
 * witness in the total would make a 100% rule unsatisfiable).
 */
export function explainWitnessPolicy(
  policy: WitnessPolicy,
  witnesses: readonly PolicyWitness[],
  proved: (uri: string) => boolean,
): PolicyOutcome {
  const outcome = (role: WitnessRole): RoleOutcome => {
    const { total, collected } = counts(policy, witnesses, role, proved);
    const rule = policy[role];
    return { role, term: roleTerm(rule, role), total, collected, holds: roleHolds(rule, collected, total) };
  };
  const batch = outcome('batch');
  const system = outcome('system');
  const satisfied = policy.operator === 'AND' ? batch.holds && system.holds : batch.holds || system.holds;
  return { satisfied, operator: policy.operator, batch, system };
}

/** Whether the proofs received satisfy the policy (`explainWitnessPolicy` without the counts). */
export function evaluateWitnessPolicy(
  policy: WitnessPolicy,
  witnesses: readonly PolicyWitness[],
  proved: (uri: string) => boolean,
): boolean {
  return explainWitnessPolicy(policy, witnesses, proved).satisfied;
}

export interface SelectionInput {
  witnesses: readonly PolicyWitness[];
  /** Witnesses already asked and still counted on (selected earlier, answered or within their grace period). */
  selected: ReadonlySet<string>;
  /** Witnesses that may not be selected (asked earlier and silent past the grace period). */
  excluded: ReadonlySet<string>;
  /** Random integer in [0, n): injectable so tests are deterministic. */
  random?: (n: number) => number;
}

export type Selection = { found: true; additional: string[] } | { found: false; reason: string };

/**
 * The witnesses to ask in addition to `selected` so that, if all of them answer, the policy holds
 * (orb.md §2.6 `Select`): the fewest per role, picked at random among the eligible (not excluded, not
 * already selected, with a log under LogRequired). Under AND, witnesses that are in both roles are taken
 * first, since each counts twice; under OR, the smaller of the two roles' selections. An empty list
 * means nobody more needs to be asked.
 */
export function selectWitnesses(policy: WitnessPolicy, input: SelectionInput): Selection {
  const random = input.random ?? ((n: number) => Math.floor(Math.random() * n));
  const counted = input.witnesses.filter((w) => !policy.logRequired || w.hasLog);
  const eligible = counted.filter((w) => !input.excluded.has(w.uri) && !input.selected.has(w.uri));

  const need = (role: WitnessRole): number => {
    const members = counted.filter((w) => w.roles.includes(role));
    const secured = members.filter((w) => input.selected.has(w.uri) && !input.excluded.has(w.uri)).length;
    return Math.max(0, requiredProofs(policy[role], members.length) - secured);
  };
  const pick = (pool: PolicyWitness[], count: number, taken: Set<string>): PolicyWitness[] => {
    const available = pool.filter((w) => !taken.has(w.uri));
    const chosen: PolicyWitness[] = [];
    while (chosen.length < count && available.length > 0) {
      const [one] = available.splice(random(available.length), 1) as [PolicyWitness];
      chosen.push(one);
      taken.add(one.uri);
    }
    return chosen;
  };
  const forRoles = (roles: readonly WitnessRole[]): Selection => {
    const taken = new Set<string>();
    const remaining = {
      batch: roles.includes('batch') ? need('batch') : 0,
      system: roles.includes('system') ? need('system') : 0,
    };
    const chosen: PolicyWitness[] = [];
    const take = (picked: PolicyWitness[]): void => {
      for (const w of picked) {
        chosen.push(w);
        for (const role of w.roles) if (remaining[role] > 0) remaining[role]--;
      }
    };
    if (roles.length === 2)
      take(
        pick(
          eligible.filter((w) => w.roles.length === 2),
          Math.min(remaining.batch, remaining.system),
          taken,
        ),
      );
    for (const role of roles)
      take(
        pick(
          eligible.filter((w) => w.roles.includes(role)),
          remaining[role],
          taken,
        ),
      );
    const short = roles.filter((role) => remaining[role] > 0);
    if (short.length > 0)
      return { found: false, reason: `not enough eligible ${short.join(' and ')} witnesses for the policy` };
    return { found: true, additional: chosen.map((w) => w.uri) };
  };

  if (policy.operator === 'AND') return forRoles(['batch', 'system']);
  const options = [forRoles(['batch']), forRoles(['system'])];
  const found = options.filter((s): s is { found: true; additional: string[] } => s.found);
  if (found.length === 0) return options[0] as Selection;
  // A role that already holds needs nobody: then nobody more is asked.
  return found.reduce((a, b) => (b.additional.length < a.additional.length ? b : a));
}
