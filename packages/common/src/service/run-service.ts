import {
  describeConfig,
  loadConfig,
  runMain,
  type ConfigSources,
  type ConfigSpec,
  type MainIo,
  type OptionMap,
  type SectionMap,
  type SettingsOf,
  type Stoppable,
} from '../config/index.js';
import { configureLogging, getLogger, type LogFormat, type LogLevelSpec } from '../log/index.js';

/** What a service's `main.ts` starts: anything with `start` and `stop` (a `Service`, or a service's own wrapper). */
export interface Runnable extends Stoppable {
  start(): Promise<void>;
}

export interface RunServiceOptions<Config> {
  /** Logging as the flags say, applied before the configuration line is logged. */
  logging(config: Config): { levels: string | LogLevelSpec; format?: LogFormat | undefined };
  sources?: ConfigSources;
  io?: MainIo;
  stopTimeoutMs?: number;
}

/**
 * The whole of a service's `main.ts`: reads flags and env, configures logging, logs the effective
 * configuration (secrets masked), creates and starts the service, and leaves exit codes and
 * SIGTERM/SIGINT (stop, then exit) to `runMain`.
 *
 *   await runService(nodeConfigSpec, (config) => createServer(config), { logging: (c) => c.observability.log });
 */
export async function runService<O extends OptionMap, S extends SectionMap>(
  spec: ConfigSpec<O, S>,
  create: (config: SettingsOf<O, S>) => Promise<Runnable> | Runnable,
  options: RunServiceOptions<SettingsOf<O, S>>,
): Promise<void> {
  await runMain(
    async () => {
      const config = loadConfig(spec, options.sources);
      const logging = options.logging(config);
      configureLogging({ levels: logging.levels, ...(logging.format ? { format: logging.format } : {}) });
      getLogger(spec.program).info('configuration', describeConfig(spec, config));
      const service = await create(config);
      await service.start();
      return service;
    },
    {
      program: spec.program,
      ...(options.io ? { io: options.io } : {}),
      ...(options.stopTimeoutMs !== undefined ? { stopTimeoutMs: options.stopTimeoutMs } : {}),
    },
  );
}
