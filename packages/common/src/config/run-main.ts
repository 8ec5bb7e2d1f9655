import { ConfigError, HelpRequested } from './errors.js';

/** What a service entry point starts: `runMain` stops it on SIGTERM/SIGINT. */
export interface Stoppable {
  stop(): Promise<void>;
  /**
   * Lets the started service say it cannot go on in this process (e.g. its embedded store refuses writes
   * until a restart): `runMain` then stops it and exits 1, so a supervisor starts it again.
   */
  onFatal?(listener: (reason: string) => void): void;
}

/** The process surface `runMain` touches, replaceable in unit tests. */
export interface MainIo {
  stdout(text: string): void;
  stderr(text: string): void;
  exit(code: number): void;
  onSignal(signal: NodeJS.Signals, handler: () => void): void;
}

export interface RunMainOptions {
  /** Prefix of error lines; defaults to the script's file name. */
  program?: string;
  /** A stop that takes longer is abandoned with exit code 1. Default 30 s. */
  stopTimeoutMs?: number;
  signals?: readonly NodeJS.Signals[];
  io?: MainIo;
}

const processIo: MainIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
  onSignal: (signal, handler) => process.on(signal, handler),
};

/**
 * The only place a binary exits. Runs `start` (which typically calls `loadConfig` and starts a server)
 * and maps the outcome onto exit codes:
 *   - `HelpRequested` (`--help`, `--version`): text on stdout, exit 0;
 *   - `ConfigError`: one line `<program>: <message>` on stderr, exit 2;
 *   - any other start-up failure: the message (and stack for non-AppErrors) on stderr, exit 1;
 *   - SIGTERM/SIGINT: `stop()` the started service, exit 0 (1 if stop fails or exceeds the timeout);
 *     a second signal exits 1 at once;
 *   - the started service's `onFatal`: one line on stderr, `stop()`, exit 1.
 *
 *   await runMain(async () => {
 *     const config = loadConfig(spec);
 *     const server = createServer(config);
 *     await server.start();
 *     return server;
 *   }, { program: spec.program });
 */
export async function runMain(
  start: () => Promise<Stoppable | void> | Stoppable | void,
  options: RunMainOptions = {},
): Promise<void> {
  const io = options.io ?? processIo;
  const program = options.program ?? scriptName();
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  let started: Stoppable | undefined;
  let starting = true;
  let stopping = false;
  let pendingSignal = false;

  const stop = async (exitCode = 0): Promise<void> => {
    stopping = true;
    if (!started) {
      io.exit(0);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), stopTimeoutMs);
    });
    try {
      const outcome = await Promise.race([started.stop().then(() => 'stopped' as const), timeout]);
      if (outcome === 'timeout') {
        io.stderr(`${program}: stop did not finish within ${stopTimeoutMs} ms\n`);
        io.exit(1);
      } else io.exit(exitCode);
    } catch (error) {
      io.stderr(`${program}: stop failed: ${describe(error)}\n`);
      io.exit(1);
    } finally {
      clearTimeout(timer);
    }
  };

  for (const signal of options.signals ?? (['SIGTERM', 'SIGINT'] as const)) {
    io.onSignal(signal, () => {
      if (stopping) {
        io.stderr(`${program}: ${signal} again, exiting without waiting\n`);
        io.exit(1);
      } else if (starting) pendingSignal = true;
      else void stop();
    });
  }

  try {
    started = (await start()) ?? undefined;
  } catch (error) {
    if (error instanceof HelpRequested) {
      io.stdout(error.text);
      io.exit(0);
    } else if (error instanceof ConfigError) {
      io.stderr(`${program}: ${error.message}\n`);
      io.exit(2);
    } else {
      io.stderr(`${program}: start-up failed: ${describe(error)}\n`);
      io.exit(1);
    }
    return;
  } finally {
    starting = false;
  }
  started?.onFatal?.((reason) => {
    if (stopping) return;
    io.stderr(`${program}: ${reason}; stopping so that a supervisor restarts the process\n`);
    void stop(1);
  });
  if (pendingSignal) await stop();
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // AppErrors are deliberate messages; anything else is unexpected, so its stack helps.
    return error.name === 'AppError' || !error.stack ? error.message : error.stack;
  }
  return String(error);
}

function scriptName(): string {
  const script = process.argv[1] ?? 'service';
  return (
    script
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.(c|m)?[jt]s$/, '') ?? 'service'
  );
}
