import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { ConfigError, opt } from '../config/index.js';

/** `--tls-cacerts`, the same in every service; `clients` names the outbound calls that trust the files. */
export function tlsCaCertsOption(clients: string) {
  return opt.list({
    flag: 'tls-cacerts',
    help: `PEM files of CA certificates trusted for outbound https besides Node's bundled roots: ${clients}`,
  });
}

/**
 * The CA certificates of `--tls-cacerts` files (PEM, one or more certificates each), read once at start.
 * A file that cannot be read or holds no certificate is a configuration error naming it (one line, exit 2),
 * not a TLS failure on the first outbound call.
 */
export function readCaCertificates(files: readonly string[]): Buffer[] {
  return files.map((file) => {
    let pem: Buffer;
    try {
      pem = readFileSync(file);
    } catch (error) {
      throw new ConfigError(`--tls-cacerts: cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----'))
      throw new ConfigError(`--tls-cacerts: ${file} holds no PEM certificate`);
    return pem;
  });
}

/**
 * Node's `ca` option replaces the bundled Mozilla roots; an operator's private CA is meant to be trusted
 * besides them (as the Go services' system pool plus `--tls-cacerts`), so the roots are listed again.
 */
export function withBundledRoots(extra: string | Buffer | ReadonlyArray<string | Buffer>): Array<string | Buffer> {
  return [...rootCertificates, ...(Array.isArray(extra) ? extra : [extra as string | Buffer])];
}
