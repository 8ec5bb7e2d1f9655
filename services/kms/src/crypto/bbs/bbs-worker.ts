import { serveTasks } from '@anchor/common/workers';
import { runBbsTask, type BbsOutcome, type BbsTask } from './bbs-operations.js';
import { createGenerators } from './ciphersuite.js';

// A worker thread of the BBS pool (index.ts, createBbs). The generators with wide tables are built before the
// thread reports ready, so the first requests do not pay for them.
createGenerators(16);
serveTasks<BbsTask, BbsOutcome>(runBbsTask);
