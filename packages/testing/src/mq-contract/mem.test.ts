import { createMemMessageQueue } from '@anchor/common/mq';
import { testMessageQueue } from './index.js';

testMessageQueue('mem', { create: async (options) => createMemMessageQueue(options) });
