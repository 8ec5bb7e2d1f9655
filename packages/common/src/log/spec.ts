import { badRequest } from '../errors/index.js';
import { parseLogLevel, type LogLevel } from './levels.js';

/**
 * A parsed level spec `module1=level1:module2=level2:defaultLevel`: per-module levels and the level of
 * every other module. Applying a spec replaces the previous one entirely, so what `GET /loglevels`
 * returns is exactly what was last applied.
 */
export interface LogLevelSpec {
  readonly defaultLevel: LogLevel;
  readonly modules: ReadonlyMap<string, LogLevel>;
}

const MODULE_NAME = /^[A-Za-z0-9_.\-/]+$/;

/**
 * Parses a level spec. Rejected with a `bad_request` AppError giving the reason: an empty spec or
 * element, a malformed or repeated module entry, an unknown level, or a spec that does not end with
 * the default level; a rejected spec changes nothing.
 */
export function parseLogSpec(text: string): LogLevelSpec {
  const trimmed = text.trim();
  if (trimmed === '') throw badRequest('empty log level spec; expected module1=level1:module2=level2:defaultLevel');
  const elements = trimmed.split(':').map((element) => element.trim());
  const defaultElement = elements[elements.length - 1] as string;
  if (defaultElement.includes('=')) {
    throw badRequest('log level spec must end with the default level, e.g. "anchor-writer=debug:info"');
  }
  const modules = new Map<string, LogLevel>();
  elements.slice(0, -1).forEach((element, index) => {
    const position = `element ${index + 1}`;
    if (element === '') throw badRequest(`log level spec has an empty ${position}`);
    const equals = element.indexOf('=');
    if (equals < 0)
      throw badRequest(
        `log level spec ${position} "${element}" is not module=level; only the last element may be a bare level`,
      );
    const module = element.slice(0, equals).trim();
    if (!MODULE_NAME.test(module))
      throw badRequest(`log level spec ${position} has an invalid module name "${module}"`);
    if (modules.has(module)) throw badRequest(`log level spec names module "${module}" twice`);
    modules.set(module, parseLogLevel(element.slice(equals + 1)));
  });
  if (defaultElement === '') throw badRequest('log level spec ends with an empty default level');
  return { defaultLevel: parseLogLevel(defaultElement), modules };
}

/** Renders a spec in the format `parseLogSpec` reads (levels in their canonical lower-case names). */
export function formatLogSpec(spec: LogLevelSpec): string {
  return [...[...spec.modules].map(([module, level]) => `${module}=${level}`), spec.defaultLevel].join(':');
}
