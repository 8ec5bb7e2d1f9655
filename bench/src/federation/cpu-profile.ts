/**
 * Preloaded into the bench's node processes (`--import`) when `BENCH_CPU_PROFILE_DIR` is set: samples the
 * process's CPU with the inspector from start to exit and writes `<dir>/<name>-<pid>.cpuprofile` (open it in
 * Chrome DevTools or VS Code). NODE_OPTIONS cannot carry `--cpu-prof`, hence this.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  // The in-process session answers synchronously, so the profile is written before the process is gone.
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error)
        writeFileSync(
          join(dir, `${process.env.BENCH_PROCESS_NAME ?? 'node'}-${process.pid}.cpuprofile`),
          JSON.stringify(result.profile),
        );
    });
  });
}
