import { createMemStoreProvider } from '@anchor/common/storage';
import { testStoreProvider } from './index.js';

testStoreProvider('mem', { create: async () => createMemStoreProvider() });
