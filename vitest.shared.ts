import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

/**
 * One test configuration for every workspace: tests live beside the code (`src/**\/*.test.ts`) or in `test/`,
 * and each run leaves a JSON summary that `scripts/run-tests.mjs` totals into the CI closing line.
 *
 * Workspace packages export a `development` condition pointing at their TypeScript sources, so unit tests
 * of one package see the current sources of another without a build. (Service processes started by
 * integration tests run the built `dist/` as production does.)
 */
export function workspaceTestConfig(
  overrides: {
    testTimeout?: number;
    hookTimeout?: number;
    include?: string[];
    fileParallelism?: boolean;
    maxWorkers?: number;
  } = {},
): ViteUserConfig {
  const conditions = ['development', ...defaultServerConditions];
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['development'] } },
    test: {
      include: overrides.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      reporters: ['default', ['json', { outputFile: '.test-results/results.json' }]],
      testTimeout: overrides.testTimeout ?? 30_000,
      hookTimeout: overrides.hookTimeout ?? 60_000,
      fileParallelism: overrides.fileParallelism ?? true,
      // Vitest's default is one worker fewer than the cores: one file at a time on CI's 2 cores, while most test
      // time is spent waiting on child processes and timers (vct-log suite: 421 s with one worker, 291 s with two).
      maxWorkers: overrides.maxWorkers ?? 2,
      pool: 'forks',
      globalSetup: [fileURLToPath(new URL('./vitest.global-setup.ts', import.meta.url))],
      passWithNoTests: true,
      // @opentelemetry's `module` builds use extensionless imports Node cannot load: vite transforms them.
      server: { deps: { inline: [/@anchor\//, /@opentelemetry\//] } },
    },
  });
}
