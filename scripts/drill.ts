import { parseArgs } from 'node:util';
import { beforeNewestMigration, commitOf, dependencyMismatch, unmigratable } from './drill/release.ts';
import { upgradeDrill } from './drill/upgrade.ts';

/**
 * `npm run drill -- upgrade [--from REV]`: the rolling upgrade README's "Upgrading" promises, from the release
 * at REV (default: the commit before the newest migration was added) to this checkout. Exit 0 when every check
 * passed, 1 when one failed, 2 for a usage error or a revision that cannot be drilled.
 */
const USAGE = 'usage: npm run drill -- upgrade [--from REV]';
let parsed;
try {
  parsed = parseArgs({ options: { from: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true });
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
if (parsed.values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'upgrade') {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
let from: string;
if (parsed.values.from === undefined) {
  const before = beforeNewestMigration();
  from = before.commit;
  process.stdout.write(`from ${from.slice(0, 12)}, the commit before ${before.migration} was added\n`);
} else {
  const commit = commitOf(parsed.values.from);
  if (commit === null) {
    process.stderr.write(`--from ${parsed.values.from} names no commit this repository holds\n`);
    process.exit(2);
  }
  from = commit;
}
const refusal = unmigratable(from) ?? dependencyMismatch(from);
if (refusal) {
  process.stderr.write(`cannot drill an upgrade from it: ${refusal}\n`);
  process.exit(2);
}
const began = Date.now();
let passed: boolean;
try {
  passed = await upgradeDrill({ from, say: (line) => process.stdout.write(`${line}\n`) });
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(2);
}
process.stdout.write(`${passed ? 'passed' : 'failed'} in ${Math.round((Date.now() - began) / 1000)} s\n`);
process.exit(passed ? 0 : 1);
