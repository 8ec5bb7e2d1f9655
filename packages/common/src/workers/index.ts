export { WorkerPool, type WorkerPoolOptions } from './worker-pool.js';
export { serveTasks } from './serve-tasks.js';
export { workerThreads, workerThreadsOption, type WorkerThreads } from './worker-threads.js';
