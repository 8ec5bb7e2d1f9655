import { parseByteSize } from '../../http/index.js';
import { opt, type HostPort, type OptionDef } from '../options.js';

const HOST_URL_HELP = 'address the API listens on (host:port; :port for all interfaces)';

/**
 * `--host-url`, the API listener. `required` or `default` is the service's (a bare `vcs` must be told where to
 * listen; the vct-log listens on 0.0.0.0:5678); `short` and `env` keep a service's historical alias and names.
 */
export function hostUrlOption(
  service: { short?: string; env?: readonly string[] } & ({ default: string } | { required: true }),
): OptionDef<HostPort> {
  return opt.hostPort({ flag: 'host-url', help: HOST_URL_HELP, ...service }) as OptionDef<HostPort>;
}

/** `--tls-serve-cert` and `--tls-serve-key`: the API listener serves HTTPS with both (`tlsServePairCheck`). */
export function tlsServeOptions() {
  return {
    tlsServeCert: opt.string({
      flag: 'tls-serve-cert',
      help: 'PEM certificate file: serve HTTPS (with --tls-serve-key)',
    }),
    tlsServeKey: opt.string({ flag: 'tls-serve-key', help: 'PEM private key file of --tls-serve-cert' }),
  };
}

/** The spec check that goes with `tlsServeOptions`: both files or neither. */
export function tlsServePairCheck(c: { tlsServeCert?: string | undefined; tlsServeKey?: string | undefined }) {
  return (c.tlsServeCert === undefined) !== (c.tlsServeKey === undefined)
    ? 'options --tls-serve-cert and --tls-serve-key: give both to serve HTTPS, or neither'
    : undefined;
}

/** `--request-body-limit`, checked at start-up (a size `parseByteSize` reads). */
export function requestBodyLimitOption() {
  return opt.string({
    flag: 'request-body-limit',
    default: '1mb',
    validate: (value) => (isByteSize(value) ? undefined : 'must be a size such as 512kb or 1mb'),
    help: 'largest request body accepted; larger ones get 413',
  });
}

function isByteSize(value: string): boolean {
  try {
    parseByteSize(value);
    return true;
  } catch {
    return false;
  }
}

/** `--metrics-host`; `short` and `help` keep a service's historical alias and wording. */
export function metricsHostOption(overrides: { short?: string; help?: string } = {}) {
  return opt.hostPort({
    flag: 'metrics-host',
    ...(overrides.short === undefined ? {} : { short: overrides.short }),
    help: overrides.help ?? 'serve /metrics on this separate listener instead of the API listener',
  });
}
