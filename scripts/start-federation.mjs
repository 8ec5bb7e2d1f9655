#!/usr/bin/env node
// `npm start` (after `turbo run build`): the local federation — a vct-log and two did:node nodes on
// loopback that follow and witness each other — until Ctrl-C. `--help` lists the options; the code is
// services/node/src/local-federation.
import { runFederationCommand } from '@anchor/node/local-federation';

await runFederationCommand();
