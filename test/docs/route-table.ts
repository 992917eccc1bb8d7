/** The markers around the route table of docs/http-api.md, which is written from the OpenAPI document. */
export const TABLE_START = '<!-- routes: generated from GET /api/v1/openapi.json; FLEETPLANE_UPDATE_DOCS=1 npx jest test/docs rewrites it -->';
export const TABLE_END = '<!-- end of routes -->';

interface Operation {
  summary?: string;
  security?: unknown[];
  'x-fleetplane-access'?: string;
}

export interface Route {
  method: string;
  path: string;
  access: string;
  summary: string;
}

/** Every operation of an OpenAPI document, in the document's order: method, path, who may call it, and what it does. */
export function routesOf(document: { paths: Record<string, Record<string, Operation>> }): Route[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      // A public operation needs no credential (`security: []`); the others name the role they need.
      access: op['x-fleetplane-access'] ?? (Array.isArray(op.security) && op.security.length === 0 ? 'public' : 'unknown'),
      summary: op.summary ?? '',
    })),
  );
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The route table as docs/http-api.md holds it, markers included. */
export function routeTable(routes: readonly Route[]): string {
  return [
    TABLE_START,
    '| method | path | role | what it does |',
    '|---|---|---|---|',
    ...routes.map((r) => `| ${r.method} | \`${r.path}\` | ${r.access} | ${cell(r.summary)} |`),
    TABLE_END,
  ].join('\n');
}

/** The text of docs/http-api.md with its route table replaced by `table`; null when the markers are missing. */
export function withRouteTable(text: string, table: string): string | null {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) return null;
  return text.slice(0, start) + table + text.slice(end + TABLE_END.length);
}
