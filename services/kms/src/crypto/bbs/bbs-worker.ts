import { serveTasks } from '@anchor/common/workers';
import { runBbsTask, type BbsOutcome, type BbsTask } from './bbs-operations.js';

// A worker thread of the BBS pool (index.ts, createBbs).
serveTasks<BbsTask, BbsOutcome>(runBbsTask);
