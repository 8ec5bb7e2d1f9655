/**
 * Bad configuration: an unknown flag, a value of the wrong type, a missing required option, or an
 * inconsistency between options found after parsing. Its message is one line naming the option;
 * `runMain` prints it and exits with code 2 (the conventional "usage error" status).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly exitCode = 2;
}

/** `--help` (or `--version`) was asked for: `text` goes to stdout and the program exits 0. */
export class HelpRequested extends Error {
  override readonly name = 'HelpRequested';
  readonly exitCode = 0;
  constructor(readonly text: string) {
    super('help requested');
  }
}

/**
 * Thrown by value parsers: `reason` explains what is wrong without repeating the input, so the caller
 * can decide whether to quote the input (never for secrets). `offending` narrows the quote to the bad
 * part, e.g. one item of a list.
 */
export class InvalidValue extends Error {
  override readonly name = 'InvalidValue';
  constructor(
    readonly reason: string,
    readonly offending?: string,
  ) {
    super(reason);
  }
}
