import { workspaceTestConfig } from '../../vitest.shared.js';

export default workspaceTestConfig();
