/**
 * A service's `/healthcheck` answer in a few words: its overall `status` (`OK`, `Maintenance`, `Starting`,
 * `Unavailable`), then each component status that is not `success`, as `name: status` (a 503 body names the
 * failing ones; `vctStatus: disabled` and the like are reported though healthy, since they say what is off).
 */
export function healthSummary(httpStatus: number, body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return `unknown (answered ${httpStatus} without a health report)`;
  const fields = body as Record<string, unknown>;
  const status = typeof fields['status'] === 'string' ? fields['status'] : httpStatus === 200 ? 'OK' : 'Unavailable';
  const notes = Object.entries(fields)
    .filter(([name, value]) => name.endsWith('Status') && typeof value === 'string' && value !== 'success')
    .map(([name, value]) => `${name}: ${String(value)}`);
  return notes.length === 0 ? status : `${status} (${notes.join('; ')})`;
}

/** Whether a summary says the service is healthy (`OK`, whatever it notes). */
export function isHealthy(summary: string): boolean {
  return summary === 'OK' || summary.startsWith('OK (');
}
