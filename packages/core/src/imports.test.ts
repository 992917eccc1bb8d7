import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Core's source files and the files each imports (relative imports resolved; packages as named). */
function importGraph(root: string): Map<string, string[]> {
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  return new Map(
    files.map((file) => {
      const imported = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true).importedFiles.map((i) => i.fileName);
      return [file, imported.map((i) => (i.startsWith('.') ? relative(root, resolve(root, dirname(file), i)) : i))];
    }),
  );
}

/** Every cycle reachable in the graph, each as the files along it (the first repeated at the end). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) return void found.push([...path.slice(at), file]);
    if (done.has(file) || !graph.has(file)) return;
    for (const next of graph.get(file)!) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

const graph = importGraph(join(__dirname));

test('core has no import cycle: each module can be read, and tested, from the ones below it', () => {
  expect(cycles(graph)).toEqual([]);
});

test('core imports nothing but zod and node:crypto: no database, web server, clock or randomness', () => {
  const packages = new Set([...graph.values()].flat().filter((i) => !graph.has(i)));
  expect([...packages].sort()).toEqual(['node:crypto', 'zod']);
});

test('the cycle walk finds a cycle when there is one', () => {
  const cyclic = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts', 'zod']], ['c.ts', ['a.ts']]]);
  expect(cycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
});
