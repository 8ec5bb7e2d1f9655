import { InvalidValue } from './errors.js';
import { parseDuration } from './duration.js';

/** A listen address as the Go services' `--host-url` takes it: `host:port`. */
export interface HostPort {
  host: string;
  port: number;
}

const TRUE = new Set(['true', 't', '1', 'yes', 'y', 'on']);
const FALSE = new Set(['false', 'f', '0', 'no', 'n', 'off']);

export function parseBool(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new InvalidValue('not a boolean; use true or false');
}

export function parseInteger(raw: string): number {
  const value = raw.trim();
  if (!/^[+-]?\d+$/.test(value)) throw new InvalidValue('not an integer');
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new InvalidValue('integer out of range');
  return number;
}

export function parseNumber(raw: string): number {
  const value = raw.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)) throw new InvalidValue('not a number');
  const number = Number(value);
  if (!Number.isFinite(number)) throw new InvalidValue('number out of range');
  return number;
}

export function checkBounds(
  value: number,
  min: number | undefined,
  max: number | undefined,
  show: (n: number) => string,
): void {
  if (min !== undefined && value < min) throw new InvalidValue(`must be at least ${show(min)}`);
  if (max !== undefined && value > max) throw new InvalidValue(`must be at most ${show(max)}`);
}

export function parseDurationValue(raw: string): number {
  try {
    return parseDuration(raw);
  } catch (error) {
    throw new InvalidValue((error as Error).message);
  }
}

/** Validates an absolute URL, optionally restricted to some schemes (given with or without the colon). */
export function parseUrl(raw: string, protocols: readonly string[] | undefined): string {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidValue('not an absolute URL');
  }
  if (protocols && protocols.length > 0) {
    const allowed = protocols.map((p) => (p.endsWith(':') ? p : `${p}:`));
    if (!allowed.includes(url.protocol))
      throw new InvalidValue(`URL scheme must be one of ${allowed.map((p) => p.slice(0, -1)).join(', ')}`);
  }
  return value;
}

/** `host:port`, `[::1]:port`, or `:port` (all interfaces, as in Go). Port 0 asks the OS for a free port. */
export function parseHostPort(raw: string): HostPort {
  const value = raw.trim();
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]/\s]*)):(\d{1,5})$/.exec(value);
  if (!match) throw new InvalidValue('not a host:port address (e.g. 0.0.0.0:8080)');
  const port = Number(match[3]);
  if (port > 65_535) throw new InvalidValue('port must be between 0 and 65535');
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' ? '0.0.0.0' : host, port };
}

export function formatHostPort(value: HostPort): string {
  return value.host.includes(':') ? `[${value.host}]:${value.port}` : `${value.host}:${value.port}`;
}

/** Splits a list value on `separator`, trimming items and dropping empty ones (`a, b,` is `[a, b]`). */
export function splitList(raw: string, separator: string | null): string[] {
  const items = separator === null ? [raw] : raw.split(separator);
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** `name=value` items (the value may itself contain `=`, as base64 padding does). */
export function parseKeyValue(item: string): [string, string] {
  const equals = item.indexOf('=');
  if (equals <= 0) throw new InvalidValue('expected name=value', item);
  return [item.slice(0, equals).trim(), item.slice(equals + 1).trim()];
}
