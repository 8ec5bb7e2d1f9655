import { badRequest } from '@anchor/common/errors';
import type { ConfigValues } from '../runtime-config/config-values.js';

const SETTING = 'log-url';

/**
 * The transparency log this node uses as its local witness (orb.md §1.2 `/log`): the URL of a log alias,
 * e.g. `https://vct.example.com/maple2021`, kept in the database so every instance uses the same log.
 * Read on every anchor (one keyed read a batch), so a change made through any instance applies at once.
 */
export class LogSetting {
  constructor(private readonly config: ConfigValues) {}

  async get(): Promise<string | undefined> {
    return (await this.config.get<{ url: string }>(SETTING))?.url;
  }

  /** Sets the log (validated), or clears it with an empty value. Returns what is now configured. */
  async set(value: string): Promise<string | undefined> {
    const text = value.trim();
    if (text === '') {
      await this.config.delete(SETTING);
      return undefined;
    }
    const url = checkLogUrl(text);
    await this.config.set(SETTING, { url });
    return url;
  }
}

/** An absolute http(s) URL without query or fragment, normalised without a trailing slash. */
export function checkLogUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest(`log URL '${text}' is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw badRequest(`log URL '${text}' must be http or https`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw badRequest(`log URL '${text}' must not carry a query, fragment or credentials`);
  if (url.pathname === '/' || url.pathname === '')
    throw badRequest(`log URL '${text}' must name a log alias, e.g. ${url.origin}/maple2021`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
