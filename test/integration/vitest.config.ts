import { workspaceTestConfig } from '../../vitest.shared.js';

// Integration suites start real service processes; run files one at a time so they never compete for the 2 cores.
export default workspaceTestConfig({ testTimeout: 180_000, hookTimeout: 180_000, fileParallelism: false });
