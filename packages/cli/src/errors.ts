import { AppError } from '@anchor/common/errors';

/** A failure to report as one line; `exitCode` 1 (failed) unless it is a usage mistake (2). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** One line for any failure: what went wrong, never a stack trace. */
export function describeFailure(error: unknown): string {
  if (error instanceof CliError || error instanceof AppError) return error.message;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
