#!/usr/bin/env node
// `anchor`: the federation's command-line client (see docs/cli.md and `anchor --help`).
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2));
