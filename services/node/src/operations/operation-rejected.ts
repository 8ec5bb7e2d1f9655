import { AppError } from '@anchor/common/errors';

/** A refused operation: always a 400 naming the problem; `reason` labels node_operations_rejected_total. */
export class OperationRejected extends AppError {
  constructor(
    readonly reason: 'invalid' | 'origin' | 'unknown-did' | 'deactivated' | 'commitment',
    message: string,
  ) {
    super('bad_request', message);
  }
}
