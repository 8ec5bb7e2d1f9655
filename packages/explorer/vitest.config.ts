import { workspaceTestConfig } from '../../vitest.shared.js';

// Without this file vitest ran with its default reporters and wrote no .test-results/results.json, so
// scripts/run-tests.mjs counted the explorer as a crashed run although its tests passed.
export default workspaceTestConfig();
