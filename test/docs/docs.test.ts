import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { openApiDocument } from '../../packages/hub/src/http/openapi.ts';
import { allRoutes } from '../../packages/hub/src/http/routes/all.ts';
import { citedIds, idsIn } from './cited-ids.ts';
import { filesUnder } from './files.ts';
import { anchorsOf, linksOf, prose } from './markdown.ts';
import { routesOf, routeTable, withRouteTable } from './route-table.ts';

// The repository explains itself: its documents link only to its own files and headings, the behaviour ids
// that tests and comments cite are defined, and the HTTP contract names every route the Hub serves.

const ROOT = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const markdownFiles = filesUnder(ROOT, '.', ['.md']);

test('every link in the repository\'s Markdown stays inside it and reaches a file, and a heading where it names one', () => {
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (path: string) => anchors.get(path) ?? anchors.set(path, anchorsOf(read(path))).get(path)!;
  const broken: string[] = [];
  for (const file of markdownFiles) {
    for (const { target, line } of linksOf(read(file))) {
      const at = `${file}:${line} → ${target}`;
      // A scheme (https:, mailto:, file:), a network path or an absolute path leaves a clone of the repository.
      if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(target) || target.startsWith('/')) {
        broken.push(`${at}: links outside the repository`);
        continue;
      }
      const [path = '', anchor] = decodeURI(target).split('#', 2);
      const resolved = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), path);
      const inside = relative(ROOT, resolved);
      if (inside.startsWith('..') || isAbsolute(inside)) broken.push(`${at}: links outside the repository`);
      else if (!existsSync(resolved)) broken.push(`${at}: no such file`);
      else if (anchor !== undefined && inside.endsWith('.md') && !anchorsIn(inside).has(anchor)) broken.push(`${at}: no heading #${anchor} in ${inside}`);
    }
  }
  expect(broken).toEqual([]);
});

test('every behaviour id cited in a test title or a comment under packages/ and test/, or in a document, is defined in docs/behaviours.md', () => {
  const defined = new Set([...read('docs/behaviours.md').matchAll(/^- \*\*([A-Z][1-9][0-9]?)\*\* /gm)].map((m) => m[1]!));
  // Every area's ids run from 1 without a gap: a definition whose markup this reading misses shows here.
  for (const area of new Set([...defined].map((id) => id[0]!))) {
    const numbers = [...defined].filter((id) => id[0] === area).map((id) => Number(id.slice(1))).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
  }
  expect(defined.size).toBeGreaterThan(60);
  const undefinedIds: string[] = [];
  for (const file of [...filesUnder(ROOT, 'packages', ['.ts', '.tsx']), ...filesUnder(ROOT, 'test', ['.ts', '.tsx'])]) {
    for (const c of citedIds(file, read(file))) if (!defined.has(c.id)) undefinedIds.push(`${file}:${c.line} (${c.in}) cites ${c.id}`);
  }
  for (const file of markdownFiles) {
    prose(read(file))
      .split('\n')
      .forEach((text, i) => {
        for (const id of idsIn(text)) if (!defined.has(id)) undefinedIds.push(`${file}:${i + 1} cites ${id}`);
      });
  }
  expect(undefinedIds).toEqual([]);
});

test('the citations are read from comments and test titles only, never from strings or code', () => {
  const source = [
    "// SPEC A4 and C6; an S3 bucket; SPEC K2",
    "const ids = ['%E0%A4', 'B2'];",
    "/** E1, E2 */ function f() {}",
    "test.each([1])('G3 %s', () => {});",
    "describe(`J4 ${ids[0]} H7`, () => { it('not one', () => {}); });",
    "it('K3 L4 a new area leads the title; M5 within it is not read', () => {});",
  ].join('\n');
  expect(citedIds('x.test.ts', source).map((c) => `${c.id}:${c.line}:${c.in}`)).toEqual([
    'A4:1:comment',
    'C6:1:comment',
    'K2:1:comment',
    'E1:3:comment',
    'E2:3:comment',
    'G3:4:title',
    'J4:5:title',
    'H7:5:title',
    'K3:6:title',
    'L4:6:title',
  ]);
});

test('the link checker reads links and headings as GitHub renders them', () => {
  const text = [
    "# Fleetplane's tables, for SQL users",
    '## `events` — the log',
    '## Step 1: run it',
    '## Step 1: run it',
    '```sh',
    'echo "[not a link](nowhere.md)"',
    '# not a heading',
    '```',
    'See [the log](../db/README.md#events--the-log), `[code](nowhere.md)` and <https://example.com>.',
    '[ref]: decisions.md',
  ].join('\n');
  expect([...anchorsOf(text)]).toEqual(['fleetplanes-tables-for-sql-users', 'events--the-log', 'step-1-run-it', 'step-1-run-it-1']);
  expect(linksOf(text)).toEqual([
    { target: '../db/README.md#events--the-log', line: 9 },
    { target: 'https://example.com', line: 9 },
    { target: 'decisions.md', line: 10 },
  ]);
});

test('docs/http-api.md lists every route of the OpenAPI document, with its role and summary, and describes each one', () => {
  const routes = routesOf(openApiDocument(allRoutes, 'docs') as Parameters<typeof routesOf>[0]);
  const text = read('docs/http-api.md');
  const table = routeTable(routes);
  const updated = withRouteTable(text, table);
  expect(updated).not.toBeNull();
  if (process.env.FLEETPLANE_UPDATE_DOCS === '1' && updated !== text) writeFileSync(join(ROOT, 'docs/http-api.md'), updated!);
  else expect(text).toContain(table);
  // Below the table, each route has its own entry: what it takes, what it answers, and its error codes.
  const described = text.slice(text.indexOf(table) + table.length);
  const missing = routes.filter((r) => !described.includes(`\`${r.method} ${r.path}\``)).map((r) => `${r.method} ${r.path}`);
  expect(missing).toEqual([]);
});
