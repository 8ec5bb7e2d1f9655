import { readFile } from 'node:fs/promises';
import { opt } from '../config/index.js';
import { AppError, badRequest, errorMessage, notFound } from '../errors/index.js';
import { answer, jsonBody, queryValue, type Handler, type RouteSpec } from '../http/index.js';
import { bundledContext } from '../jsonld/index.js';
import { getLogger } from '../log/index.js';
import type { Feature } from '../service/index.js';
import type { JsonLdContexts } from './context-store.js';
import { parseOperatorContexts, type OperatorContext } from './operator-context.js';

/** How often an instance on a shared database (MongoDB) reads the contexts other instances changed. */
export const CONTEXTS_REFRESH_INTERVAL_MS = 10_000;

/** `--contexts-file`, the same option in every service that has JSON-LD contexts. */
export const contextsFileOption = () =>
  opt.string({
    flag: 'contexts-file',
    help: 'JSON file of JSON-LD contexts added at start-up (over the stored ones): {"url","content"}, a list of them, or {"documents":[...]}; nothing is ever fetched; a bundled context in it is passed over (the bundled copy is used)',
  });

export interface JsonLdContextsFeatureOptions {
  /** `--contexts-file`. */
  contextsFile?: string | undefined;
  /** Default `CONTEXTS_REFRESH_INTERVAL_MS` on MongoDB, none on the single-process stores. */
  refreshIntervalMs?: number | undefined;
}

export interface JsonLdContextsFeature extends Feature {
  readonly contexts: JsonLdContexts;
  /** The administrator routes, for the service's route table (`jsonLdContextRoutes`). */
  readonly routes: RouteSpec[];
}

const log = getLogger('jsonld-contexts');

/**
 * The operator's JSON-LD contexts as a service feature: `--contexts-file` is applied when the feature is
 * created (before any feature starts, so nothing checks a credential without them), the administrator
 * routes add, list and remove contexts, and on a shared database the set is read again every
 * `refreshIntervalMs` so replicas converge.
 */
export async function createJsonLdContextsFeature(
  contexts: JsonLdContexts,
  options: JsonLdContextsFeatureOptions = {},
): Promise<JsonLdContextsFeature> {
  if (options.contextsFile !== undefined) {
    const fromFile = await readContextsFile(options.contextsFile);
    // trustbloc/vct deployments ship files holding contexts this project now bundles (the W3C examples, ODRL):
    // the bundled copy is used and the file's is passed over, said once, rather than refusing to start.
    const bundled = fromFile.filter((context) => bundledContext(context.url) !== undefined);
    const added = fromFile.filter((context) => bundledContext(context.url) === undefined);
    if (bundled.length > 0)
      log.warn('contexts in --contexts-file are bundled: the bundled copies are used', {
        file: options.contextsFile,
        contexts: bundled.map((c) => c.url),
      });
    await contexts.add(added);
    log.info('JSON-LD contexts loaded', { file: options.contextsFile, contexts: added.map((c) => c.url) });
  }
  const refreshMs = options.refreshIntervalMs ?? (contexts.sharedStore ? CONTEXTS_REFRESH_INTERVAL_MS : undefined);
  let timer: NodeJS.Timeout | undefined;
  return {
    name: 'jsonld-contexts',
    contexts,
    routes: jsonLdContextRoutes(contextHandlers(contexts)),
    async start() {
      if (refreshMs === undefined) return;
      timer = setInterval(() => {
        contexts
          .refresh()
          .catch((error: unknown) => log.warn('reading the JSON-LD contexts failed', { error: errorMessage(error) }));
      }, refreshMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
    },
  };
}

/** The contexts of a `--contexts-file`; a file that cannot be read or parsed stops the start, naming it. */
export async function readContextsFile(path: string): Promise<OperatorContext[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`--contexts-file ${path}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    return parseOperatorContexts(JSON.parse(text));
  } catch (error) {
    throw new Error(
      `--contexts-file ${path}: ${error instanceof AppError ? error.message : `not JSON: ${errorMessage(error)}`}`,
      {
        cause: error,
      },
    );
  }
}

interface ContextHandlers {
  add: Handler;
  list: Handler;
  remove: Handler;
}

function contextHandlers(contexts: JsonLdContexts): ContextHandlers {
  return {
    add: async (req) => {
      if (req.body === undefined)
        throw badRequest('the body must be JSON: {"url","content"}, a list of them, or {"documents":[...]}');
      const added = parseOperatorContexts(jsonBody(req));
      await contexts.add(added);
      log.info('JSON-LD contexts added', { contexts: added.map((c) => c.url) });
      return answer({ json: { added: added.map((c) => c.url) } });
    },
    list: () =>
      answer({ json: { documents: contexts.list().map(({ url, document }) => ({ url, content: document })) } }),
    remove: async (req) => {
      const url = queryValue(req, 'url');
      if (url === undefined || url.length === 0)
        throw badRequest('the query parameter url (the context URL) is required, once');
      if (!(await contexts.remove(url))) throw notFound(`no context ${url} was added`);
      log.info('JSON-LD context removed', { context: url });
      return answer({ status: 204 });
    },
  };
}

const CONTEXT_PATH = '/ld/context';

/**
 * `POST`, `GET` and `DELETE /ld/context`: trustbloc/vct's context admin path (aries' `/ld/context`, which the
 * log served under each alias), administrator token only.
 */
export function jsonLdContextRoutes(handlers: ContextHandlers): RouteSpec[] {
  const common = { path: CONTEXT_PATH, auth: 'admin', tag: 'contexts' } as const;
  return [
    {
      ...common,
      method: 'POST',
      summary:
        'adds or replaces JSON-LD contexts, all or none; stored, and used by every JSON-LD check of the service at once',
      body: {
        mediaTypes: ['application/json'],
        description:
          '`{"url","content"}`, a list of them, or `{"documents":[{"url","content"}]}` (trustbloc/vct\'s shapes)',
      },
      responses: {
        200: { description: '`{"added":["<url>",...]}`', mediaType: 'application/json' },
        400: 'not one of the shapes; a URL that is not absolute; a content without @context',
        409: 'a bundled context: it cannot be replaced',
      },
      handler: handlers.add,
    },
    {
      ...common,
      method: 'GET',
      summary: 'the contexts the operator added, in the shape POST takes: `{"documents":[{"url","content"}]}`',
      responses: { 200: { description: 'the added contexts', mediaType: 'application/json' } },
      handler: handlers.list,
    },
    {
      ...common,
      method: 'DELETE',
      summary: 'removes an added context; credentials using it are refused (400) from then on',
      query: [{ name: 'url', description: 'the context URL', required: true }],
      responses: {
        204: 'removed',
        400: 'no `url`',
        404: 'no such context was added',
        409: 'a bundled context: it cannot be removed',
      },
      handler: handlers.remove,
    },
  ];
}
