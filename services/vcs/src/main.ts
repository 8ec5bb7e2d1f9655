#!/usr/bin/env node
/**
 * `vcs`: reads flags and `VC_REST_*` environment variables, starts the credential service, and stops it gracefully
 * on SIGTERM/SIGINT (see `--help`).
 */
import { runService } from '@anchor/common/service';
import { VCS_CONFIG, vcsOptionsFrom } from './config.js';
import { createServer } from './server.js';

await runService(VCS_CONFIG, (flags) => createServer(vcsOptionsFrom(flags)), {
  logging: (flags) => ({ levels: flags.logLevel, format: flags.logFormat }),
});
