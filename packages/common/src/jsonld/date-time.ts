/**
 * Proof `created` values are xsd:dateTimeStamp: an ISO 8601 date and time with a zone (`Z` or `±hh:mm`),
 * optionally with fractional seconds (Orb writes the log's millisecond timestamps that way).
 */
const DATE_TIME_STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|([+-])(\d{2}):(\d{2}))$/;

export function isDateTimeStamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DATE_TIME_STAMP.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [zoneHour, zoneMinute] = [Number(match[8] ?? 0), Number(match[9] ?? 0)];
  // Round-trip the calendar fields so impossible dates (February 30th) are rejected, not rolled over.
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    zoneHour <= 23 &&
    zoneMinute <= 59
  );
}

/** `YYYY-MM-DDThh:mm:ssZ`: whole seconds in UTC, the form the Digital Bazaar suites write. */
export function formatDateTimeStamp(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
