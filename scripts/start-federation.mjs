#!/usr/bin/env node
// `npm start` (after building @anchor/dev-env and the services it runs): the local federation — a kms, a vct-log
// and two did:node nodes on loopback that follow and witness each other, signing through the kms — until Ctrl-C. `--help` lists the
// options; the code is packages/dev-env.
import { runFederationCommand } from '@anchor/dev-env';

await runFederationCommand();
