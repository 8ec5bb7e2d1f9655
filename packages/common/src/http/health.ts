/**
 * Health of a service's components for `GET /healthcheck`. Each named check resolves to a status:
 * "success" (or nothing) when healthy, or an error text; throwing or outlasting the timeout counts as an
 * error text too. A check may declare non-success statuses that are not failures (the node reports
 * vctStatus "disabled" or "log endpoint not configured" and stays healthy), or answer a `CheckResult` that says
 * itself whether its status is healthy (a stalled store is "degraded" and healthy for a while, see
 * `StallBoundedProbe`); a healthy non-success status makes the overall status `Degraded`, still 200.
 */
export type HealthCheck = () => Promise<string | void | CheckResult> | string | void | CheckResult;

/** A status and whether it counts as healthy, whatever the check's `acceptable` list says. */
export interface CheckResult {
  status: string;
  healthy: boolean;
}

export interface HealthCheckOptions {
  /** Non-success statuses that do not make the service unhealthy. */
  acceptable?: readonly string[];
  /** Overrides the default timeout for this check. */
  timeoutMs?: number;
  /**
   * A check registered before this one whose part this check needs (`dbStatus` for a check that reads the
   * store). While that check is not "success" this one is not run (it would hang on a stalled store until
   * its timeout, failing the service for the other check's cause); its status says so and counts as healthy,
   * so the other check's own status decides (a degraded store keeps the service Degraded, 200).
   */
  dependsOn?: string;
}

export interface HealthOptions {
  /** A check slower than this fails with a timeout status. Default 5 s. */
  timeoutMs?: number;
  /** Name of the timestamp field: `currentTime` (node, default) or `current_time` (log service). */
  timeField?: string;
  /** Name of the overall status field (`OK`, `Degraded`, `Starting`, `Maintenance`, `Unavailable`); null leaves it out. Default `status`. */
  statusField?: string | null;
}

export interface HealthReport {
  healthy: boolean;
  body: Record<string, unknown>;
}

interface Registered {
  check: HealthCheck;
  acceptable: ReadonlySet<string>;
  timeoutMs: number;
  dependsOn: string | undefined;
}

export const HEALTHY = 'success';

export class HealthChecks {
  private readonly checks = new Map<string, Registered>();
  private readonly fieldProviders: Array<() => Record<string, unknown> | Promise<Record<string, unknown>>> = [];
  private maintenanceMode = false;
  private startingUp = false;
  private readonly timeoutMs: number;
  private readonly timeField: string;
  private readonly statusField: string | null;

  constructor(options: HealthOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.timeField = options.timeField ?? 'currentTime';
    this.statusField = options.statusField === undefined ? 'status' : options.statusField;
  }

  /** Adds a named check (`dbStatus`, `mqStatus`, ...); a name can be registered once. */
  register(name: string, check: HealthCheck, options: HealthCheckOptions = {}): void {
    if (this.checks.has(name) || name === this.timeField || name === this.statusField)
      throw new Error(`health check name "${name}" is already in use`);
    if (options.dependsOn !== undefined && !this.checks.has(options.dependsOn))
      throw new Error(`health check "${name}" depends on "${options.dependsOn}", which is not registered (yet)`);
    this.checks.set(name, {
      check,
      acceptable: new Set(options.acceptable ?? []),
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      dependsOn: options.dependsOn,
    });
  }

  /** Adds fields to every health body (e.g. `{ version }`); they never override check statuses. */
  addFields(provider: () => Record<string, unknown> | Promise<Record<string, unknown>>): void {
    this.fieldProviders.push(provider);
  }

  /** In maintenance the service reports `Maintenance` and stays 200, whatever its checks say. */
  setMaintenance(on: boolean): void {
    this.maintenanceMode = on;
  }

  get maintenance(): boolean {
    return this.maintenanceMode;
  }

  /**
   * While a service starts its background work after it already listens, it reports `Starting` with 503:
   * a probe must not call it ready while its start-up can still fail.
   */
  setStarting(on: boolean): void {
    this.startingUp = on;
  }

  /** Runs every check concurrently, each bounded by its timeout; a dependent one after its dependency. */
  async evaluate(): Promise<HealthReport> {
    const outcomes = new Map<string, Promise<CheckResult>>();
    for (const [name, registered] of this.checks) {
      const needed = registered.dependsOn === undefined ? undefined : this.checks.get(registered.dependsOn);
      const dependency = registered.dependsOn === undefined ? undefined : outcomes.get(registered.dependsOn);
      outcomes.set(
        name,
        needed === undefined || dependency === undefined
          ? runCheck(registered)
          : dependency.then((first) => runDependent(registered, first, needed)),
      );
    }
    const results = await Promise.all(
      [...this.checks].map(async ([name, registered]) => [name, registered, await outcomes.get(name)!] as const),
    );
    const body: Record<string, unknown> = {};
    let failing = false;
    let degraded = false;
    for (const [name, registered, { status, healthy: ok }] of results) {
      body[name] = status;
      if (!ok) failing = true;
      else if (status !== HEALTHY && !registered.acceptable.has(status)) degraded = true;
    }
    const healthy = !this.startingUp && (this.maintenanceMode || !failing);
    if (this.statusField !== null)
      body[this.statusField] = this.startingUp
        ? 'Starting'
        : this.maintenanceMode
          ? 'Maintenance'
          : !healthy
            ? 'Unavailable'
            : degraded
              ? 'Degraded'
              : 'OK';
    body[this.timeField] = new Date().toISOString();
    for (const provider of this.fieldProviders) {
      for (const [key, value] of Object.entries(await provider())) if (!(key in body)) body[key] = value;
    }
    return { healthy, body };
  }
}

/** How long a dependent check runs before its dependency is asked again (it may have stalled since). */
const DEPENDENT_PATIENCE_MS = 1_000;

/**
 * A check that needs another's part: not run while that one is not "success"; when it is slow, the other is
 * asked again, since a dependency that answered from a fresh result may have stalled just after.
 */
async function runDependent(registered: Registered, first: CheckResult, needed: Registered): Promise<CheckResult> {
  const notChecked: CheckResult = { status: `not checked while ${registered.dependsOn} is not success`, healthy: true };
  if (first.status !== HEALTHY) return notChecked;
  const own = runCheck(registered);
  let timer: NodeJS.Timeout | undefined;
  const slow = await Promise.race([
    own.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), DEPENDENT_PATIENCE_MS))),
  ]);
  clearTimeout(timer);
  if (!slow) return own;
  const again = await Promise.race([runCheck(needed), own.then(() => undefined)]);
  return again === undefined || again.status === HEALTHY ? own : notChecked;
}

async function runCheck({ check, timeoutMs, acceptable }: Registered): Promise<CheckResult> {
  const judged = (status: string): CheckResult => ({ status, healthy: status === HEALTHY || acceptable.has(status) });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve(judged(`health check timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const outcome = Promise.resolve()
      .then(check)
      .then(
        (status) => (typeof status === 'object' ? status : judged(typeof status === 'string' ? status : HEALTHY)),
        (error: unknown) => judged((error instanceof Error ? error.message : String(error)) || 'health check failed'),
      );
    return await Promise.race([outcome, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
