import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Directories that are not the repository's own text: installed packages, build output, tools' state. */
const SKIPPED = new Set(['node_modules', 'dist', 'test-artifacts']);

/**
 * The repository's files under `dir` whose names end in one of `extensions`, as paths relative to `root`, sorted.
 * Hidden directories (`.git`, `.fleetplane`, `.build`) and those in SKIPPED are left out.
 */
export function filesUnder(root: string, dir: string, extensions: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (extensions.some((e) => entry.name.endsWith(e))) found.push(relative(root, path));
    }
  };
  walk(join(root, dir));
  return found.sort();
}
