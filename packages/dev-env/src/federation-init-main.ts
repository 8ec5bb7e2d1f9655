#!/usr/bin/env node
// `federation-init` (the compose file's one-shot service): see federation-init.ts and `--help`.
import { runFederationInit } from './federation-init.js';

await runFederationInit();
