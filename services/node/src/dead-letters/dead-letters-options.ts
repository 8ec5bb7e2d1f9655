import { opt } from '@anchor/common/config';

/** The dead-letter store's bound, in the node's `queue` section. */
export const deadLettersOptions = {
  deadLettersMax: opt.int({
    flag: 'dead-letters-max',
    default: 10_000,
    min: 1,
    help: 'Dead letters (deliveries and received activities that failed on every attempt) kept for inspection and replay at /dead-letters; beyond it the oldest are dropped',
  }),
};
