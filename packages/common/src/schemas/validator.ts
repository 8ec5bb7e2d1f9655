import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { badRequest } from '../errors/index.js';

/**
 * One ajv instance (JSON Schema 2020-12 with the standard formats) for the whole process. Schemas are
 * registered by `$id` and compiled on first use, then served from ajv's cache, so validating a request
 * costs one call of generated code.
 */

/** A JSON Schema that carries, at the type level only, the TypeScript type of the data it accepts. */
export type Schema<T> = Readonly<{ $id: string; [keyword: string]: unknown }> & { readonly __accepts?: T };

/** Declares a schema for data of type T: `const FOO = defineSchema<Foo>({ $id: ..., type: 'object', ... })`. */
export function defineSchema<T>(definition: { $id: string; [keyword: string]: unknown }): Schema<T> {
  return definition as Schema<T>;
}

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module namespace.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

// verbose: errors carry their schema, so anyOf branches can be described by the schema's own description.
const ajv = addFormats(new Ajv2020({ allErrors: false, strict: true, verbose: true, allowUnionTypes: true }));

/** Registers schemas so that they can be referenced (`$ref`) and validated by `$id`. Re-registering is a no-op. */
export function registerSchemas(...schemas: Schema<unknown>[]): void {
  for (const schema of schemas) {
    if (!ajv.getSchema(schema.$id)) ajv.addSchema(schema);
  }
}

/**
 * Compiles schemas now rather than on first use: a large schema (an activity) takes ajv long to compile,
 * time a service should spend while starting, not on the event loop under its first request.
 */
export function precompileSchemas(...schemas: Schema<unknown>[]): void {
  for (const schema of schemas) compiled(schema);
}

function compiled(schema: Schema<unknown> | string): ValidateFunction {
  const id = typeof schema === 'string' ? schema : schema.$id;
  if (typeof schema !== 'string') registerSchemas(schema);
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`no JSON schema registered as ${id}`);
  return validate;
}

export interface ValidateOptions {
  /** What is being validated, for the message: `invalid <what>: ...`. Defaults to `request`. */
  what?: string;
}

/**
 * Validates data against a schema (or a registered schema id) and returns it typed, or throws ONE
 * `bad_request` naming the first failing path and why, e.g. `invalid request: /0/type must be one of
 * follow, invite-witness`.
 */
export function validate<T>(schema: Schema<T>, data: unknown, options?: ValidateOptions): T;
export function validate(schemaId: string, data: unknown, options?: ValidateOptions): unknown;
export function validate(schema: Schema<unknown> | string, data: unknown, options: ValidateOptions = {}): unknown {
  const problem = firstProblem(schema, data);
  if (problem !== undefined)
    throw badRequest(`invalid ${options.what ?? 'request'}: ${problem}`, { details: { path: problem.split(' ')[0] } });
  return data;
}

/** Type guard: true when the data satisfies the schema. */
export function isValid<T>(schema: Schema<T>, data: unknown): data is T {
  return compiled(schema)(data) === true;
}

/** The first problem as `<path> <reason>`, or undefined when the data is valid. */
export function firstProblem(schema: Schema<unknown> | string, data: unknown): string | undefined {
  const check = compiled(schema);
  if (check(data) === true) return undefined;
  return describe(check.errors ?? []);
}

function describe(errors: readonly ErrorObject[]): string {
  // ajv reports the failing branches of an anyOf/oneOf before the anyOf itself; the anyOf says it best.
  const union = errors.find((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const error = union ?? errors[0];
  if (!error) return '/ is invalid';
  return `${pathOf(error)} ${reasonOf(error)}`;
}

function pathOf(error: ErrorObject): string {
  const base = error.instancePath === '' ? '' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${base}/${String(params.missingProperty)}`;
  if (error.keyword === 'additionalProperties') return `${base}/${String(params.additionalProperty)}`;
  return base === '' ? '/' : base;
}

function reasonOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not allowed';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'format':
      return `must be a valid ${String(params.format)}`;
    case 'type':
      return `must be ${article(String(params.type))}`;
    case 'anyOf':
    case 'oneOf': {
      const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
      return typeof description === 'string' ? `must be ${description}` : 'has an unexpected shape';
    }
    case 'contains': {
      const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
      return typeof description === 'string' ? `must ${description}` : (error.message ?? 'is invalid');
    }
    default:
      return error.message ?? 'is invalid';
  }
}

function article(type: string): string {
  return type
    .split(',')
    .map((name) => (/^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`))
    .join(' or ');
}
