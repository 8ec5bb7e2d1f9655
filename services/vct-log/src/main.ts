#!/usr/bin/env node
/**
 * `vct-log`: reads flags and `VCT_*` environment variables, starts the transparency log service, and stops
 * it gracefully on SIGTERM/SIGINT (see `--help`).
 */
import { describeConfig, runMain } from '@anchor/common/config';
import { configureLogging, getLogger } from '@anchor/common/log';
import { loadVctLogOptions, VCT_LOG_CONFIG } from './config.js';
import { createServer } from './server.js';

await runMain(
  async () => {
    const { options, flags, ignoredEndpoints } = loadVctLogOptions();
    configureLogging({ levels: flags.logLevel, ...(flags.logFormat ? { format: flags.logFormat } : {}) });
    const log = getLogger('vct-log');
    log.info('configuration', describeConfig(VCT_LOG_CONFIG, flags));
    for (const endpoint of ignoredEndpoints) log.warn('ignoring the log server endpoint of --logs: every log is embedded', { log: endpoint });
    const server = createServer(options);
    await server.start();
    return server;
  },
  { program: VCT_LOG_CONFIG.program },
);
