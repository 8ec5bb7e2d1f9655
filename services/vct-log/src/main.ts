#!/usr/bin/env node
/**
 * `vct-log`: reads flags and `VCT_*` environment variables, starts the transparency log service, and stops
 * it gracefully on SIGTERM/SIGINT (see `--help`).
 */
import { getLogger } from '@anchor/common/log';
import { runService } from '@anchor/common/service';
import { VCT_LOG_CONFIG, vctLogOptionsFrom } from './config.js';
import { createServer } from './server.js';

await runService(
  VCT_LOG_CONFIG,
  (flags) => {
    const { options, ignoredEndpoints } = vctLogOptionsFrom(flags);
    for (const endpoint of ignoredEndpoints)
      getLogger('vct-log').warn('ignoring the log server endpoint of --logs: every log is embedded', { log: endpoint });
    return createServer(options);
  },
  { logging: (flags) => ({ levels: flags.logLevel, format: flags.logFormat }) },
);
