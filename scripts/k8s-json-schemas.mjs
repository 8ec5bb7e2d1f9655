#!/usr/bin/env node
// Writes kubeconform's schemas for one Kubernetes release from that release's OpenAPI document
// (api/openapi-spec/swagger.json of the k8s.io/kubernetes module): one standalone file per kind, named as
// kubeconform looks them up ({kind}-{group}-{version}.json, lower case, the group's first label), each with
// the definitions it reaches. Strict, as kubeconform's own "-strict" schemas are: an object with properties
// admits no others, so a misspelt field fails. Usage: k8s-json-schemas.mjs <swagger.json> <out dir>
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [swaggerPath, outDir] = process.argv.slice(2);
if (!swaggerPath || !outDir) {
  console.error('usage: k8s-json-schemas.mjs <swagger.json> <out dir>');
  process.exit(2);
}
const { definitions } = JSON.parse(readFileSync(swaggerPath, 'utf8'));

// The two string formats YAML writes as numbers too (`port: 8080`, `memory: 1`), as kubeconform's schemas
// take them.
const SPECIAL = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
};

/** The definition in JSON Schema terms: refs local, objects with properties closed. */
function convert(node) {
  if (Array.isArray(node)) return node.map(convert);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-kubernetes-') || key === 'description') continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v)]))
        : convert(value);
  }
  if (out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false;
  if (out.format === 'int-or-string') return SPECIAL['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
  return out;
}

const converted = Object.fromEntries(
  Object.entries(definitions).map(([name, definition]) => [name, SPECIAL[name] ?? convert(definition)]),
);

function reachable(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const walk = (node) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') reachable(value.replace('#/definitions/', ''), seen);
        else walk(value);
      }
  };
  walk(converted[name]);
  return seen;
}

mkdirSync(outDir, { recursive: true });
let written = 0;
for (const [name, definition] of Object.entries(definitions)) {
  for (const { group, version, kind } of definition['x-kubernetes-group-version-kind'] ?? []) {
    const suffix = group === '' ? `-${version}` : `-${group.split('.')[0]}-${version}`;
    const own = [...reachable(name)].filter((other) => other !== name);
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...converted[name],
      definitions: Object.fromEntries(own.map((other) => [other, converted[other]])),
    };
    // `apiVersion` and `kind` of this file's kind only.
    schema.properties = {
      ...schema.properties,
      apiVersion: { type: 'string', enum: [group === '' ? version : `${group}/${version}`] },
      kind: { type: 'string', enum: [kind] },
    };
    writeFileSync(join(outDir, `${kind.toLowerCase()}${suffix}.json`), JSON.stringify(schema));
    written++;
  }
}
console.error(`wrote ${written} schemas to ${outDir}`);
