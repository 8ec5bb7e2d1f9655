import type { ApiInfo } from './openapi.js';
import type { ResponseSpec, RouteSpec } from './route-spec.js';
import { openApiPath, tokenKind } from './route-table.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Who may call a route, in words: its `access`, else what its auth class means. */
export function accessText(info: ApiInfo, route: RouteSpec): string {
  if (route.access !== undefined) return route.access;
  const token = `${tokenKind(route.method)} token where defined`;
  switch (route.auth) {
    case 'open':
      return 'anyone';
    case 'admin':
      return `${token} (a signature is not enough)`;
    case 'signed':
      return `${token}, or a signature the handler accepts`;
    case 'read':
    case 'write':
      return info.httpSignatures ? `${token}, or a signature` : token;
  }
}

/**
 * The README table of a route table's routes with one tag (all routes without one): method, path, who
 * may call, what it does, and the error answers it documents.
 */
export function renderRoutesMarkdown(info: ApiInfo, routes: readonly RouteSpec[], tag?: string): string {
  const rows = ['| Method | Path | Who | What | Errors |', '|---|---|---|---|---|'];
  for (const route of routes) {
    if (tag !== undefined && route.tag !== tag) continue;
    const errors = Object.entries(route.responses)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, spec]) => `${status} ${typeof spec === 'string' ? spec : (spec as ResponseSpec).description}`)
      .join('; ');
    rows.push(
      `| ${route.method} | \`${openApiPath(route.path)}\` | ${cell(accessText(info, route))} | ${cell(route.summary)} | ${cell(errors)} |`,
    );
  }
  return `${rows.join('\n')}\n`;
}

const BLOCK = /(<!-- routes: ([\w-]+) -->\n)[\s\S]*?(<!-- \/routes -->)/g;

/**
 * A README with each `<!-- routes: <tag> -->` ... `<!-- /routes -->` block holding the current table of
 * that tag: a test compares the README with this (a drifted table fails), and `npm run docs` writes it.
 */
export function withRouteTables(markdown: string, info: ApiInfo, routes: readonly RouteSpec[]): string {
  return markdown.replace(
    BLOCK,
    (_block, start: string, tag: string, end: string) => `${start}${renderRoutesMarkdown(info, routes, tag)}${end}`,
  );
}

/** The tags of the README's route blocks, so a test can check that every route's tag has a table. */
export function routeTableTags(markdown: string): string[] {
  return [...markdown.matchAll(BLOCK)].map((match) => match[2] as string);
}
