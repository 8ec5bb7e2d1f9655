#!/usr/bin/env node
// `npm run demo`: creates one DID on node1 of the running local federation (`npm start`) and waits until
// every node resolves it published. The code is packages/dev-env.
import { runDemoCommand } from '@anchor/dev-env';

await runDemoCommand();
