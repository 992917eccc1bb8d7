import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// README, "Upgrading": a migration keeps the release before it working. The upgrade drill (scripts/drill.ts)
// checks that against the release before the newest migration, from a checkout of it in git history: its Hubs
// serve on through this checkout's `migrate`, then this checkout's Hubs and agents replace them and everything
// converges and verifies. The earlier migrations' drills are run by hand (`npm run drill -- upgrade --from REV`).

const ROOT = join(__dirname, '..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** Whether git history holds the commit before the newest migration was added (a shallow clone does not). */
function historyHoldsTheReleaseBefore(): boolean {
  try {
    const newest = git('ls-files', 'db/migrations').split('\n').filter((f) => /\/\d{4}_.*\.sql$/.test(f)).sort().at(-1)!;
    const added = git('log', '--diff-filter=A', '--format=%H', '--', newest).split('\n').at(-1)!;
    git('rev-parse', '--verify', '--quiet', `${added}^^{commit}`);
    return true;
  } catch {
    return false;
  }
}

const held = historyHoldsTheReleaseBefore();
if (!held) process.stderr.write('skipping the upgrade drill: git history does not hold the release before the newest migration (git fetch --unshallow)\n');

let drill: ChildProcess | null = null;
// A drill cut short by the test's time limit stops what it started (it cleans up on SIGTERM).
afterAll(() => void drill?.kill('SIGTERM'));

(held ? test : test.skip)('the Hubs and agents of the release before the newest migration serve on through this checkout\'s migrate, then are replaced and everything converges and verifies', async () => {
  drill = spawn(process.execPath, [join(ROOT, 'scripts/drill.ts'), 'upgrade'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  drill.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  drill.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((exited) => drill!.once('exit', exited));
  // Each check is a line of the drill's output: a failure names the ones that failed.
  expect({ code, failed: output.split('\n').filter((l) => /FAIL|cannot drill/.test(l)) }).toEqual({ code: 0, failed: [] });
}, 180_000);
