export { KeyedMutex } from './keyed-mutex.js';
