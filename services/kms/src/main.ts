#!/usr/bin/env node
/**
 * `kms`: reads flags and `KMS_*` environment variables, starts the key management service, and stops it
 * gracefully on SIGTERM/SIGINT (see `--help`).
 */
import { runService } from '@anchor/common/service';
import { KMS_CONFIG, kmsOptionsFrom } from './config.js';
import { createServer } from './server.js';

await runService(KMS_CONFIG, (flags) => createServer(kmsOptionsFrom(flags)), {
  logging: (flags) => ({ levels: flags.logLevel, format: flags.logFormat }),
});
