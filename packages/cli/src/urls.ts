import { CliError } from './errors.js';

/** The options that name a service by URL (the global ones and `federation status --nodes`). */
const URL_OPTIONS: ReadonlyArray<readonly [key: string, flag: string]> = [
  ['nodeUrl', 'node-url'],
  ['logUrl', 'log-url'],
  ['kmsUrl', 'kms-url'],
  ['vcsUrl', 'vcs-url'],
  ['nodes', 'nodes'],
];

/**
 * Refuses, as a usage error, a service URL without http:// or https:// (`127.0.0.1:8081` reads as a URL whose
 * scheme is `127.0.0.1`), before the command does anything, with the URL it probably meant.
 */
export function checkUrls(args: Readonly<Record<string, unknown>>): void {
  for (const [key, flag] of URL_OPTIONS) {
    const value = args[key];
    for (const url of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      const text = String(url);
      if (/^https?:\/\/[^/]/i.test(text)) continue;
      const hint = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
        ? 'only http:// and https:// are served'
        : `give its scheme, e.g. --${flag} http://${text.replace(/^\/+/, '')}`;
      throw new CliError(`--${flag} ${text} is not an http(s) URL: ${hint}`, 2);
    }
  }
}
