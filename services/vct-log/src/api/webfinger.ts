import { badRequest, notFound } from '@anchor/common/errors';
import { JRD_MEDIA_TYPE, transparencyLogJrd } from '@anchor/common/webfinger';
import { answer, type Handler } from '@anchor/common/http';
import type { VctMetrics } from '../metrics.js';
import type { LogSigner } from '../signing/log-signer.js';
import type { LogRegistry } from './log-access.js';

export interface WebFingerRouteOptions {
  logs: LogRegistry;
  signer: LogSigner;
  metrics: VctMetrics;
  /** The log's external URL (known once listening); a resource must be on its host (and under its path, if it has one). */
  baseUrl: () => string;
}

/**
 * GET /.well-known/webfinger?resource=<base-url>/<alias>: the log's ledger type (`vct-v1`) and public key,
 * which clients verify add-vc and STH signatures with. Errors as trustbloc/vct's: no resource 400, a resource
 * that is not a URL 400, another host 404, no alias 404, an unknown alias 404.
 */
export function webFingerHandler(options: WebFingerRouteOptions): Handler {
  const { logs, signer, metrics } = options;
  const handler: Handler = (req) => {
    const started = process.hrtime.bigint();
    // Labelled by alias, not by the resource asked for: clients must not grow the series at will.
    let alias = 'unknown';
    try {
      const resource = req.query.get('resource') ?? '';
      alias = aliasOf(resource);
      const jrd = answer({
        text: `${JSON.stringify(transparencyLogJrd(resource, signer.publicKeyBytes))}\n`,
        type: JRD_MEDIA_TYPE,
        // The public key is public: a node's explorer reads it to check tree heads in the page.
        headers: { 'Access-Control-Allow-Origin': '*' },
      });
      metrics.record('webfinger', alias, started, true);
      return jrd;
    } catch (error) {
      metrics.record('webfinger', alias, started, false);
      throw error;
    }
  };

  function aliasOf(resource: string): string {
    const base = new URL(options.baseUrl());
    const basePath = base.pathname.replace(/\/+$/, '');
    if (resource === '') throw badRequest('resource is required');
    let uri: URL;
    try {
      uri = new URL(resource);
    } catch {
      throw badRequest(`invalid resource URI ${JSON.stringify(resource)}`);
    }
    if (uri.host !== base.host) throw notFound(`resource not found ${JSON.stringify(resource)}`);
    // A base URL with a path (a log behind a path-routing proxy) puts its aliases under that path.
    const path =
      basePath === ''
        ? uri.pathname.slice(1)
        : uri.pathname.startsWith(`${basePath}/`)
          ? uri.pathname.slice(basePath.length + 1)
          : '';
    if (path === '') throw notFound('ledger ID is required');
    if (!logs.has(path)) throw notFound(`ledger ID not found ${JSON.stringify(path)}`);
    return path;
  }
  return handler;
}
