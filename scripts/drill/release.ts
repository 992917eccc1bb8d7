import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/** The checkout the drill runs from: the new release. */
export const ROOT = join(import.meta.dirname, '../..');

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** The commit a revision names, or null when git does not know it. */
export function commitOf(revision: string): string | null {
  try {
    return git('rev-parse', '--verify', '--quiet', `${revision}^{commit}`);
  } catch {
    return null;
  }
}

/** The newest migration of this checkout, and the commit before the one that added it: the release before it. */
export function beforeNewestMigration(): { migration: string; commit: string } {
  const migration = readdirSync(join(ROOT, 'db/migrations')).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort().at(-1)!;
  return { migration, commit: beforeMigration(migration) };
}

/** The commit before the one that added `migration` (a file name under db/migrations). */
export function beforeMigration(migration: string): string {
  const added = git('log', '--diff-filter=A', '--format=%H', '--', `db/migrations/${migration}`).split('\n').filter(Boolean).at(-1);
  if (!added) throw new Error(`git history does not hold the commit that added db/migrations/${migration}`);
  return git('rev-parse', `${added}^`);
}

/**
 * What `npm ci` installs from a package-lock.json: every installed package's version, source and integrity, and
 * what each workspace asks for. The root's engines and the workspaces' own fields may differ between releases.
 */
function installed(lock: string): string {
  const packages = (JSON.parse(lock) as { packages: Record<string, Record<string, unknown>> }).packages;
  const kept = Object.entries(packages)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, p]) =>
      path.startsWith('node_modules/')
        ? [path, p.version, p.resolved, p.integrity, p.link]
        : [path, p.dependencies, p.devDependencies, p.optionalDependencies, p.peerDependencies],
    );
  return JSON.stringify(kept);
}

/**
 * Why a commit's migrations cannot migrate any database, or null: two files of one version (a merge that
 * collided) make its `migrate` fail at the second, so no database ever ran that commit's Hubs.
 */
export function unmigratable(commit: string): string | null {
  const files = git('ls-tree', '--name-only', `${commit}:db/migrations`).split('\n').filter((f) => /^\d{4}_.*\.sql$/.test(f));
  const versions = files.map((f) => f.slice(0, 4));
  const repeated = files.filter((f) => versions.indexOf(f.slice(0, 4)) !== versions.lastIndexOf(f.slice(0, 4)));
  return repeated.length === 0 ? null : `${commit.slice(0, 12)} cannot migrate a database (${repeated.join(' and ')} are one version): no Hub ever served on it, so there is no upgrade from it to drill`;
}

/** Why a commit's dependencies are not this checkout's, or null when they are. */
export function dependencyMismatch(commit: string): string | null {
  const theirs = installed(git('show', `${commit}:package-lock.json`));
  const ours = installed(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  return theirs === ours ? null : `the package-lock.json of ${commit.slice(0, 12)} installs other dependencies than this checkout's: its node_modules cannot be this one's`;
}

/** A detached worktree of `commit` at `dir` (refused, before anything is made, when its dependencies differ). */
export function addWorktree(commit: string, dir: string): void {
  const mismatch = dependencyMismatch(commit);
  if (mismatch) throw new Error(mismatch);
  git('worktree', 'add', '--quiet', '--detach', dir, commit);
}

/**
 * The worktree's node_modules, this checkout's: each entry a link to the installed package, except the
 * workspaces (`@fleetplane/*`), which link to the worktree's own packages so that the old release's code
 * imports its own core.
 */
export function linkModules(dir: string): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@fleetplane'), { recursive: true });
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry !== '@fleetplane') symlinkSync(realpathSync(join(ROOT, 'node_modules', entry)), join(modules, entry));
  }
  for (const workspace of readdirSync(join(dir, 'packages'))) symlinkSync(join(dir, 'packages', workspace), join(modules, '@fleetplane', workspace));
}

/** Removes a worktree `addWorktree` made: its links first, so that nothing they point at is touched. */
export function removeWorktree(dir: string): void {
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  git('worktree', 'remove', '--force', dir);
}
