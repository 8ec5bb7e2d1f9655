import { existsSync, readFileSync, readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

// Import boundaries: services import packages, never each other; packages never import services (a package
// that needs a service starts its bin); packages/sidetree is the pure protocol and does no I/O. Workspaces are
// read from the root package.json, so a new service is covered the day it is added.
const readJson = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
const workspaces = readJson('./package.json')
  .workspaces.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(new URL(pattern.slice(0, -1), import.meta.url)).map((name) => `${pattern.slice(0, -1)}${name}`)
      : [pattern],
  )
  .filter((dir) => existsSync(new URL(`./${dir}/package.json`, import.meta.url)))
  .map((dir) => ({ dir, name: readJson(`./${dir}/package.json`).name }));
const isPackage = (workspace) => workspace.dir.startsWith('packages/');
const isService = (workspace) => workspace.dir.startsWith('services/');

const notPackages = workspaces.filter((workspace) => !isPackage(workspace)).map((workspace) => workspace.name);

const NODE_IO = 'fs net http https http2 child_process worker_threads cluster dgram dns tls readline repl inspector';
const LIBRARY_IO = 'lmdb mongodb amqplib express helmet undici ws axios winston prom-client';
const COMMON_IO = 'storage mq http http-client log metrics config service workers webfinger clients';
const IO_MODULES = [
  ...NODE_IO.split(' ').flatMap((name) => [name, `node:${name}`]),
  ...LIBRARY_IO.split(' '),
  ...COMMON_IO.split(' ').map((module) => `@anchor/common/${module}`),
  '@anchor/testing',
];

const restriction = (names, message) => ({ names, message });
const packageRule = restriction(
  notPackages,
  'packages never import services, tests or bench: start a service through its bin',
);
const serviceRule = (service) =>
  restriction(
    notPackages.filter((name) => name !== service.name),
    'services import packages, never each other: move what both need into @anchor/common',
  );
const sidetreeRule = (modules) =>
  restriction(modules, 'packages/sidetree is the pure protocol and does no I/O: the caller brings the bytes');

// no-restricted-imports does not look at import(), so dynamic imports get the same lists through their source.
const escapeForSelector = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('/', '\\x2F');
const boundaries = (files, restrictions) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: restrictions.map(({ names, message }) => ({ group: names.flatMap((n) => [n, `${n}/*`]), message })) },
    ],
    'no-restricted-syntax': [
      'error',
      ...restrictions.map(({ names, message }) => ({
        selector: `ImportExpression[source.value=/^(${names.map(escapeForSelector).join('|')})(\\x2F|$)/]`,
        message,
      })),
    ],
  },
});
const SIDETREE_TESTS = ['**/*.test.ts', '**/*.test-helpers.ts', '**/testing/**'].map(
  (glob) => `packages/sidetree/${glob}`,
);
// Later blocks replace earlier ones' options, so the sidetree blocks repeat the package rule.
const importBoundaries = [
  ...workspaces.filter(isPackage).map((workspace) => boundaries([`${workspace.dir}/**`], [packageRule])),
  ...workspaces.filter(isService).map((service) => boundaries([`${service.dir}/**`], [serviceRule(service)])),
  boundaries(['packages/sidetree/**'], [packageRule, sidetreeRule(IO_MODULES)]),
  // Its tests read their vector files from disk; nothing else in the package touches the outside world.
  boundaries(SIDETREE_TESTS, [
    packageRule,
    sidetreeRule(IO_MODULES.filter((name) => !['fs', 'node:fs'].includes(name))),
  ]),
];
const sidetreeNoFetch = {
  files: ['packages/sidetree/**'],
  rules: { 'no-restricted-globals': ['error', { name: 'fetch', message: sidetreeRule([]).message }] },
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/*.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // A relative path into another workspace skips its exports and its build: import it by package name.
    // Each workspace's vitest.config.ts reads the one test configuration at the root, which is no workspace.
    ignores: ['**/vitest.config.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle reads the imported files too, so it must know they are TypeScript.
      'import-x/extensions': ['.ts', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts'] },
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.mts', '.js', '.mjs', '.json'],
          extensionAlias: { '.js': ['.ts', '.js'], '.mjs': ['.mts', '.mjs'] },
          conditionNames: ['development', 'import', 'default'],
        }),
      ],
    },
    // No import loops between files: a loop means one of the two belongs lower, where both can import it.
    rules: { 'import-x/no-relative-packages': 'error', 'import-x/no-cycle': 'error' },
  },
  ...importBoundaries,
  sidetreeNoFetch,
);
