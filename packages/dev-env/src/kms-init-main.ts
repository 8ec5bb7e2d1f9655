#!/usr/bin/env node
// `kms-init` (the compose file's one-shot keystore job): see kms-init.ts and `--help`.
import { runKmsInit } from './kms-init.js';

await runKmsInit();
