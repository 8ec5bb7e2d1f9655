import { opt } from '../config/index.js';

/** The tracing flag every service takes (spread into its config's options). */
export function tracingOptions() {
  return {
    tracingOtlpUrl: opt.url({
      flag: 'tracing-otlp-url',
      env: ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
      protocols: ['http', 'https'],
      help: 'OTLP/HTTP endpoint spans are exported to (e.g. http://collector:4318/v1/traces); none: tracing is off',
    }),
  };
}

/** The kit's tracing settings from those option values. */
export function tracingSettingsOf(values: { tracingOtlpUrl?: string | undefined }): { otlpUrl?: string } {
  return values.tracingOtlpUrl === undefined ? {} : { otlpUrl: values.tracingOtlpUrl };
}
