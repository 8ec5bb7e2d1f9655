/**
 * Worker thread of `batch-file-builder.ts`: builds batch files and anchor links off the event loop.
 */
import { serveTasks } from '@anchor/common/workers';
import { runBuildTask } from './batch-file-builder.js';

serveTasks(runBuildTask);
