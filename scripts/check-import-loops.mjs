#!/usr/bin/env node
// Import loops that eslint's import-x/no-cycle cannot see: loops through type-only imports (the rule skips
// them), and loops between the folders of a service's src (a folder importing one that imports it back).
// Run by `npm run lint`; exits 1 naming each loop. Test files are leaves and are not counted.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Folders of these src trees must form layers: nothing imports a folder that imports it (files at the top
// of src are each their own unit).
const LAYERED = ['services/node/src'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.turbo', '.test-results', 'coverage']);
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir) {
  const files = [];
  for (const name of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.m?ts$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

function importsOf(file) {
  const targets = new Set();
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = resolve(dirname(file), specifier).replace(/\.(m?)js$/, '.$1ts');
    if (existsSync(target)) targets.add(target);
    else if (existsSync(join(target, 'index.ts'))) targets.add(join(target, 'index.ts'));
  }
  return targets;
}

/** The strongly connected components of more than one node (Tarjan), each a loop. */
function loops(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const isTest = (file) => /\.test(-helpers)?\.ts$|\.property\.test\.ts$/.test(file);
const problems = [];

// The workspaces, read from the root package.json as eslint.config.js reads them.
const workspaces = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces.flatMap((pattern) =>
  pattern.endsWith('/*')
    ? readdirSync(join(ROOT, pattern.slice(0, -2))).map((name) => `${pattern.slice(0, -1)}${name}`)
    : [pattern],
);
for (const workspace of workspaces) {
  const dir = join(ROOT, workspace);
  if (!existsSync(join(dir, 'package.json'))) continue;
  const graph = new Map(sourceFiles(dir).map((file) => [file, importsOf(file)]));
  for (const loop of loops(graph))
    problems.push(`files import in a loop: ${loop.map((f) => relative(ROOT, f)).join(', ')}`);
}

for (const src of LAYERED) {
  const base = join(ROOT, src);
  // A feature's option section (`anchoring/anchoring-options.ts`) is a unit of its own below every folder:
  // config.ts composes the sections while the features import context.ts, which imports config.ts. So that
  // this hides no loop, a section imports packages only, nothing of the service's src.
  const isOptionSection = (path) => /^[^/]+\/[^/]+-options\.ts$/.test(path);
  const unitOf = (file) => {
    const path = relative(base, file);
    if (isOptionSection(path)) return path;
    return path.includes('/') ? `${path.split('/')[0]}/` : path;
  };
  const graph = new Map();
  for (const file of sourceFiles(base).filter((f) => !isTest(f))) {
    const from = unitOf(file);
    if (!graph.has(from)) graph.set(from, new Set());
    if (isOptionSection(from))
      for (const target of importsOf(file))
        if (target.startsWith(`${base}/`))
          problems.push(
            `option section ${src}/${from} imports ${relative(base, target)}: a section imports packages only`,
          );
    for (const target of importsOf(file)) {
      const to = unitOf(target);
      if (target.startsWith(`${base}/`) && to !== from) graph.get(from).add(to);
    }
  }
  for (const loop of loops(graph)) problems.push(`folders of ${src} import in a loop: ${loop.join(', ')}`);
}

for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error('Move what both sides need to a place both import downward (see STYLE_GUIDE.md, layout).');
  process.exit(1);
}
