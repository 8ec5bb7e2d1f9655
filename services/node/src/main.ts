#!/usr/bin/env node
import { runService } from '@anchor/common/service';
import { nodeConfigSpec } from './config.js';
import { createServer } from './server.js';

await runService(nodeConfigSpec, (config) => createServer(config), {
  logging: (config) => ({ levels: config.observability.logLevel, format: config.observability.logFormat }),
});
