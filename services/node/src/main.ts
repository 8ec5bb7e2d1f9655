#!/usr/bin/env node
import { loadConfig, runMain } from '@anchor/common/config';
import { nodeConfigSpec } from './config.js';
import { createServer } from './server.js';

await runMain(
  async () => {
    const server = await createServer(loadConfig(nodeConfigSpec));
    await server.start();
    return server;
  },
  { program: nodeConfigSpec.program },
);
