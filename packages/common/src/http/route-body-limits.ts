import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * The routes that read their bodies under a limit of their own (`RouteSpec.bodyLimit`): the app-wide body
 * parsers pass them over, and each such route reads its body after the token check, so a large limit is
 * only ever read for a caller allowed to send it. Matched by method and exact path (the route has no
 * `:name` parameters; `mountRoute` refuses one that has).
 */
export class RouteBodyLimits {
  private readonly routes = new Set<string>();

  add(method: string, path: string): void {
    this.routes.add(`${method} ${path}`);
  }

  has(req: IncomingMessage): boolean {
    if (this.routes.size === 0) return false;
    const path = (req.url ?? '/').split('?', 1)[0] as string;
    return this.routes.has(`${req.method} ${path}`);
  }

  /** The app-wide parsers, passing over the routes that have a limit of their own. */
  passOver(parsers: readonly RequestHandler[]): RequestHandler[] {
    return parsers.map((parser) => (req, res, next) => (this.has(req) ? next() : parser(req, res, next)));
  }
}
